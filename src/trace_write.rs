//! A trace file (DESIGN section 6) written as the run goes: the header, then the events' lines
//! a page at a time as the line writer hands its pages on, then the result, known only at the
//! end — so `events` comes before `result` (the same JSON document: DESIGN fixes no key order,
//! and every reader looks keys up). Nothing of the run is held: a 24-hour trace streams to
//! disk in constant memory.

use std::io::{self, Write};

use locksim_sim::ENGINE_VERSION;
use locksim_sim::trace::{Page, Passing, TraceSink};
use serde_json::Value;

use crate::load::LoadedScenario;
use crate::trace_file::{FORMAT, VERSION};

/// A trace being written into `out`.
pub struct TraceWriter<W: Write> {
    out: W,
    events: usize,
    /// The first write that failed: a sink cannot fail, so the error waits for `finish`.
    error: Option<io::Error>,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the header of the run of `loaded` with `seed` and opens its `events`.
    pub fn begin(out: W, loaded: &LoadedScenario, seed: u64) -> io::Result<Self> {
        Self::begin_with(out, &loaded.file, &loaded.source, seed)
    }

    /// Writes the header of the run of the scenario `scenario_text` (read from
    /// `scenario_file`) with `seed`, and opens its `events`.
    pub fn begin_with(mut out: W, scenario_file: &str, scenario_text: &str, seed: u64) -> io::Result<Self> {
        let header = [
            ("format", Value::from(FORMAT)),
            ("version", Value::from(VERSION)),
            ("engine", Value::from(ENGINE_VERSION)),
            ("scenario_file", Value::from(scenario_file)),
            ("seed", Value::from(seed)),
            ("scenario", Value::from(scenario_text)),
        ];
        out.write_all(b"{\n")?;
        for (key, value) in header {
            write!(out, "\"{key}\": ")?;
            serde_json::to_writer(&mut out, &value)?;
            out.write_all(b",\n")?;
        }
        out.write_all(b"\"events\": [\n")?;
        Ok(TraceWriter {
            out,
            events: 0,
            error: None,
        })
    }

    /// Closes `events`, writes the run's `result` and ends the document; the error is the
    /// first write that failed.
    pub fn finish(mut self, result: &Value) -> io::Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.write_all(b"\n],\n\"result\": ")?;
        serde_json::to_writer(&mut self.out, result)?;
        self.out.write_all(b"\n}\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The lines go in by the page: taken one by one, each cost the line writer a `Passing` built
/// for it when no other sink wanted one (~27 instructions a line, measured on Snowflake).
impl<W: Write> TraceSink for TraceWriter<W> {
    fn take(&mut self, _: &Passing<'_>) {}

    fn take_page(&mut self, page: &Page<'_>) {
        for line in page.lines() {
            if self.error.is_some() {
                return;
            }
            // A comma and a newline between two lines: the line writer's page ends each line
            // with a newline alone, the hash's bytes.
            let separated = if self.events == 0 {
                Ok(())
            } else {
                self.out.write_all(b",\n")
            };
            self.events += 1;
            if let Err(err) = separated.and_then(|()| self.out.write_all(line)) {
                self.error = Some(err);
            }
        }
    }

    fn takes_each(&self) -> bool {
        false
    }
}
