//! examples/ci/'s recipes, exercised: the GitHub Actions workflow is parsed and every `run:`
//! step of every job is executed, in job order and for each matrix value, against the built
//! binary (put on the PATH by the workflow's own step); the Kubernetes Indexed Job is parsed
//! and its command run once per completion index. Both sets of shards must merge into the
//! unsharded exploration. (The insta recipe is a test target of its own,
//! `scenario_snapshots`.)

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

/// Seeds for the local runs: the recipes' own counts, scaled down to a test's time. Every other
/// value is the recipe's.
const LOCAL_SEEDS: &str = "240";

fn load_yaml(rel: &str) -> Yaml {
    let text = std::fs::read_to_string(common::root().join(rel)).expect("read");
    let mut docs = YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(docs.len(), 1, "{rel}: one document");
    docs.remove(0)
}

fn text(y: &Yaml) -> String {
    match y {
        Yaml::String(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        other => panic!("a scalar, not {other:?}"),
    }
}

/// A scratch folder laid out as a user's repository: `scenarios/` (examples/ci's), and `bin/`.
fn user_repo(name: &str) -> PathBuf {
    let dir = common::scratch_dir("ci").join(name);
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    for e in std::fs::read_dir(common::root().join("examples/ci/scenarios")).unwrap() {
        let path = e.unwrap().path();
        std::fs::copy(&path, scenarios.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The PATH without any folder holding a `locksim`: the recipe's own step must put it there.
fn path_without_locksim() -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| !d.join("locksim").exists())
        .collect();
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

/// Runs `script` as Actions runs a `run:` step (`bash --noprofile --norc -eo pipefail`).
fn bash(dir: &Path, script: &str, env: &[(String, String)], path: &str) -> Output {
    Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("PATH", path)
        .output()
        .expect("bash runs")
}

fn explore_json(dir: &Path, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&out)))
}

#[test]
fn the_github_workflow_runs_its_steps_locally_and_its_shards_merge() {
    let wf = load_yaml("examples/ci/github-actions.yml");
    let mut env: Vec<(String, String)> = wf["env"]
        .as_hash()
        .expect("workflow env")
        .iter()
        .map(|(k, v)| (text(k), text(v)))
        .collect();
    let get = |env: &[(String, String)], key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap();
    let jobs = wf["jobs"].as_hash().expect("jobs");
    let names: Vec<String> = jobs.keys().map(text).collect();
    assert_eq!(names, ["locksim", "scenarios", "snapshots", "explore", "merge"]);
    assert_eq!(text(&wf["jobs"]["merge"]["needs"]), "explore");
    let matrix: Vec<String> = wf["jobs"]["explore"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .expect("a shard matrix")
        .iter()
        .map(text)
        .collect();
    let shards = get(&env, "SHARDS");
    let expected: Vec<String> = (0..shards.parse::<u64>().unwrap()).map(|k| k.to_string()).collect();
    assert_eq!(matrix, expected, "the matrix is 0..SHARDS");

    env.retain(|(k, _)| k != "SEEDS");
    env.push(("SEEDS".into(), LOCAL_SEEDS.into()));
    let dir = user_repo("github");
    // actions/download-artifact of the `locksim` job's binary.
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_locksim"), dir.join("bin/locksim")).unwrap();
    let github_path = dir.join("github-path");
    env.push(("GITHUB_PATH".into(), github_path.display().to_string()));
    let base_path = path_without_locksim();
    let mut skipped = Vec::new();
    let mut ran = 0;
    for (job, spec) in jobs {
        let job = text(job);
        std::fs::write(&github_path, "").unwrap();
        let values: Vec<Option<&str>> = if job == "explore" {
            matrix.iter().map(|v| Some(v.as_str())).collect()
        } else {
            vec![None]
        };
        for value in values {
            std::fs::write(&github_path, "").unwrap();
            for step in spec["steps"].as_vec().expect("steps") {
                let Some(script) = step["run"].as_str() else {
                    assert!(
                        step["uses"].as_str().is_some_and(|u| u.contains("@v")),
                        "{job}: {step:?}"
                    );
                    continue;
                };
                if script.starts_with("cargo install") || script.starts_with("cargo test") {
                    skipped.push(format!("{job}: {script}"));
                    continue;
                }
                let script = value.map_or(script.to_string(), |v| script.replace("${{ matrix.shard }}", v));
                assert!(
                    !script.contains("${{"),
                    "{job}: an expression the test does not substitute: {script}"
                );
                // Each step sees the folders earlier steps of the job appended to $GITHUB_PATH.
                let added = std::fs::read_to_string(&github_path).unwrap();
                let path = added.lines().chain([base_path.as_str()]).collect::<Vec<_>>().join(":");
                let out = bash(&dir, &script, &env, &path);
                assert_eq!(
                    out.status.code(),
                    Some(0),
                    "{job}: {script}\n{}{}",
                    common::stdout(&out),
                    common::stderr(&out)
                );
                ran += 1;
            }
        }
    }
    assert_eq!(
        skipped.len(),
        2,
        "only the install and the insta recipe's cargo test: {skipped:?}"
    );
    assert!(ran >= 10, "{ran} steps");
    let scenario = get(&env, "EXPLORE_SCENARIO");
    for k in &matrix {
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("summary-{k}.json"))).unwrap()).unwrap();
        assert_eq!(summary["shard"], format!("{k}/{shards}"));
        assert_eq!(summary["hunting"], get(&env, "HUNT"));
    }
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("merged.json")).unwrap()).unwrap();
    let hunt = get(&env, "HUNT");
    let whole = explore_json(
        &dir,
        &[
            "explore",
            &scenario,
            "--seeds",
            LOCAL_SEEDS,
            "--invariant",
            &hunt,
            "--keep-going",
            "--format",
            "json",
        ],
    );
    assert_eq!(merged, whole);
}

#[test]
fn the_kubernetes_indexed_job_shards_by_completion_index_and_merges() {
    let job = load_yaml("examples/ci/k8s-explore-job.yaml");
    assert_eq!(
        (text(&job["apiVersion"]), text(&job["kind"])),
        ("batch/v1".into(), "Job".into())
    );
    let spec = &job["spec"];
    assert_eq!(text(&spec["completionMode"]), "Indexed");
    let completions = spec["completions"].as_i64().expect("completions");
    assert_eq!(spec["parallelism"].as_i64(), Some(completions));
    assert_eq!(text(&spec["template"]["spec"]["restartPolicy"]), "Never");
    let container = &spec["template"]["spec"]["containers"][0];
    let env: Vec<(String, String)> = container["env"]
        .as_vec()
        .expect("env")
        .iter()
        .map(|e| (text(&e["name"]), text(&e["value"])))
        .collect();
    let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap();
    assert_eq!(get("SHARDS"), completions.to_string(), "one shard per completion index");
    let command: Vec<String> = container["command"].as_vec().unwrap().iter().map(text).collect();
    assert_eq!(command, ["/bin/sh", "-c"]);
    let script = text(&container["args"][0]);
    assert!(script.contains("$JOB_COMPLETION_INDEX/$SHARDS"), "{script}");
    let mount = text(&container["volumeMounts"][0]["mountPath"]);
    assert_eq!(mount, get("RESULTS"), "the summaries go to the shared volume");

    let dir = user_repo("k8s");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_locksim"), dir.join("bin/locksim")).unwrap();
    let scenario = get("SCENARIO").replace("/scenarios/", "scenarios/");
    // The image's paths and the seed count mapped to the local repository and a test's time.
    let mut local: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| !["SCENARIO", "SEEDS", "RESULTS"].contains(&k.as_str()))
        .cloned()
        .collect();
    local.push(("SCENARIO".into(), scenario.clone()));
    local.push(("SEEDS".into(), LOCAL_SEEDS.into()));
    local.push(("RESULTS".into(), results.display().to_string()));
    let path = format!("{}:{}", dir.join("bin").display(), path_without_locksim());
    for index in 0..completions {
        let mut pod = local.clone();
        pod.push(("JOB_COMPLETION_INDEX".into(), index.to_string()));
        let out = Command::new(&command[0])
            .args([&command[1], &script])
            .current_dir(&dir)
            .envs(pod.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("PATH", &path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "index {index}: {}", common::stderr(&out));
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(results.join(format!("summary-{index}.json"))).unwrap())
                .unwrap();
        assert_eq!(summary["shard"], format!("{index}/{completions}"));
    }
    let mut args = vec!["merge".to_string()];
    args.extend((0..completions).map(|i| results.join(format!("summary-{i}.json")).display().to_string()));
    args.extend(["--format".into(), "json".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let merged = explore_json(&dir, &args);
    let hunt = get("HUNT");
    let whole = explore_json(
        &dir,
        &[
            "explore",
            &scenario,
            "--seeds",
            LOCAL_SEEDS,
            "--invariant",
            &hunt,
            "--keep-going",
            "--format",
            "json",
        ],
    );
    assert_eq!(merged, whole);
}
