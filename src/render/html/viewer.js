// locksim's trace viewer. TRACE (above) is the run: the page (caption, verdicts), the lanes
// ([name, role]), the events ([t_ns, lane, wall_ns, mono_ns, salience, kind, text, msg_id?]),
// each client's beliefs, each server's held keys and the support strips, all precomputed.
// The state lives in #viewer's data-cursor and data-zoom; everything else is drawn from them.
"use strict";
(function () {
  const T = 0, LANE = 1, WALL = 2, MONO = 3, SAL = 4, KIND = 5, TEXT = 6, MSG = 7;
  const SALIENCE = ["chatter", "routine", "salient"];
  const CLIENT_COLOURS = ["#1f5fbf", "#d9730d", "#2e8b57", "#8e44ad", "#a0522d", "#00838f"];
  const SVG = "http://www.w3.org/2000/svg";
  const viewer = document.getElementById("viewer");
  const events = TRACE.events;
  const lanes = TRACE.lanes.slice();
  if (events.some((e) => e[LANE] < 0)) lanes.push([TRACE.network, "network"]);
  const laneOf = (e) => (e[LANE] < 0 ? lanes.length - 1 : e[LANE]);
  const lastT = Math.max(1, events.length ? events[events.length - 1][T] : 1);
  const marked = new Map();
  for (const v of TRACE.page.verdicts) if (v.event !== null) {
    if (!marked.has(v.event)) marked.set(v.event, []);
    marked.get(v.event).push(v.invariant);
  }
  const shown = [true, true, true];
  const clientColour = (name) => {
    const clients = lanes.filter((l) => l[1] === "client").map((l) => l[0]);
    const i = clients.indexOf(name);
    return i < 0 ? "#666" : CLIENT_COLOURS[i % CLIENT_COLOURS.length];
  };

  // Seconds with milliseconds, as every locksim view prints them.
  function secs(ns) {
    const sign = ns < 0 ? "-" : "";
    const ms = Math.floor(Math.abs(ns) / 1e6);
    return sign + Math.floor(ms / 1000) + "." + String(ms % 1000).padStart(3, "0");
  }
  function el(tag, attrs, text) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- caption, filters, verdicts, legend, event list: drawn once ----
  const page = TRACE.page;
  document.getElementById("scenario-name").textContent = page.name;
  document.getElementById("scenario-description").textContent = page.description;
  document.getElementById("scenario-facts").textContent =
    "seed " + page.seed + " · " + events.length + " events over " + secs(lastT) + " s of true time";
  const filters = document.getElementById("filters");
  SALIENCE.forEach((name, s) => {
    const count = events.filter((e) => e[SAL] === s).length;
    const box = el("input", { type: "checkbox", id: "filter-" + name });
    box.checked = true;
    box.addEventListener("change", () => { shown[s] = box.checked; applyFilter(); });
    const label = el("label", { for: "filter-" + name });
    label.append(box, " " + name + " (" + count + ")");
    filters.append(label);
  });
  const verdicts = document.getElementById("verdicts");
  const list = el("ul");
  for (const v of page.verdicts) {
    const li = el("li", { class: "v-" + v.word, id: "verdict-" + v.invariant });
    li.append(v.invariant + ": " + v.word.replace("_", " "));
    if (v.event !== null) {
      const a = el("a", { href: "#event=" + v.event, class: "violation", "data-event-index": v.event },
        "event #" + v.event + " at " + secs(events[v.event] ? events[v.event][T] : 0) + " s: " + (v.why || ""));
      a.addEventListener("click", (ev) => { ev.preventDefault(); moveTo(v.event); });
      li.append(a);
    }
    list.append(li);
  }
  verdicts.append(list);
  // The legend: each swatch as the lanes draw it (a CSS background).
  const legend = document.getElementById("legend");
  [
    ["#1f5fbf", "a client's lease as it believes it: from acquiring to the deadline it computed on its own clock"],
    ["repeating-linear-gradient(45deg,#d62728 0 3px,#fff 3px 7px)", "it goes on acting as the holder past that deadline"],
    ["#2e9e4f", "under it: a quorum (" + TRACE.quorum + ") of servers holds its key"],
    ["#e0a800", "fewer than a quorum hold it"],
    ["#d62728", "it believes it holds the lock, no quorum holds its key: the gap"],
    ["#1f5fbf", "on a server: the key as that server holds it, until its expiry or delete on the server's clock"],
    ["repeating-linear-gradient(45deg,#c8c8c8 0 2px,#f2f2f2 2px 8px)", "paused"],
    ["#aaa", "crashed"],
  ].forEach(([swatch, text]) => {
    const item = el("span");
    item.append(el("span", { class: "sw", style: "background:" + swatch }), text);
    legend.append(item);
  });
  const rows = document.getElementById("event-list");
  const rowEls = events.map((e, i) => {
    const who = e[LANE] < 0 ? TRACE.network : lanes[e[LANE]][0];
    const row = el("div", { "data-event-index": i, class: "s" + e[SAL] + (marked.has(i) ? " marked" : "") },
      "#" + String(i).padEnd(6) + secs(e[T]).padStart(9) + " s  " + who.padEnd(12) + e[TEXT]);
    row.addEventListener("click", () => moveTo(i));
    rows.append(row);
    return row;
  });

  // ---- the lanes: geometry ----
  const LEFT = 10, RIGHT = 30, AXIS = 28;
  const heightOf = (role) => (role === "client" ? 92 : role === "server" ? 64 : 44);
  const top = [];
  let y = AXIS;
  for (const l of lanes) { top.push(y); y += heightOf(l[1]); }
  const totalH = y + 6;
  const names = document.getElementById("lane-names");
  names.append(el("div", { style: "height:" + AXIS + "px;font-weight:400;color:#666" }, "true time →"));
  lanes.forEach((l) => names.append(el("div", { style: "height:" + heightOf(l[1]) + "px" }, l[0])));
  const timeline = document.getElementById("timeline");
  const svg = document.getElementById("lanes");
  const baseWidth = () => Math.max(300, timeline.clientWidth - LEFT - RIGHT);
  const zoom = () => Number(viewer.dataset.zoom);
  const x = (t) => LEFT + (t / lastT) * baseWidth() * zoom();

  function niceStep(span) {
    const raw = span / 8;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  // Pauses and crashes per lane, as [from_t, to_t, kind].
  const downs = lanes.map(() => []);
  const openDown = new Map();
  events.forEach((e) => {
    const l = laneOf(e);
    if (e[KIND] === "pause" || e[KIND] === "crash") openDown.set(l, [e[T], e[KIND]]);
    if ((e[KIND] === "resume" || e[KIND] === "restart") && openDown.has(l)) {
      downs[l].push([openDown.get(l)[0], e[T], openDown.get(l)[1]]);
      openDown.delete(l);
    }
  });
  for (const [l, [from, kind]] of openDown) downs[l].push([from, lastT, kind]);

  // Where a client believes it holds the lock and no quorum holds its key.
  function gaps(b) {
    const end = b.end_t;
    const cover = TRACE.support.filter((s) => s.node === b.node && s.servers >= TRACE.quorum)
      .map((s) => [Math.max(s.from_t, b.from_t), Math.min(s.to_t, end)]).filter((s) => s[1] > s[0])
      .sort((p, q) => p[0] - q[0]);
    const out = [];
    let at = b.from_t;
    for (const [from, to] of cover) { if (from > at) out.push([at, from]); at = Math.max(at, to); }
    if (end > at) out.push([at, end]);
    return out;
  }

  function rect(parent, from, to, yy, h, attrs) {
    const x0 = x(from), w = Math.max(2, x(to) - x0);
    const r = el("svg:rect", Object.assign({ x: x0, y: yy, width: w, height: h }, attrs));
    parent.append(r);
    return w;
  }
  function label(parent, from, to, yy, text, cls) {
    const w = x(to) - x(from);
    if (w < text.length * 8.5 + 8) return;
    parent.append(el("svg:text", { x: x(from) + 4, y: yy, class: cls }, text));
  }

  function draw() {
    const width = LEFT + baseWidth() * zoom() + RIGHT;
    svg.setAttribute("width", width);
    svg.setAttribute("height", totalH);
    svg.replaceChildren();
    const defs = el("svg:defs");
    defs.innerHTML =
      '<pattern id="overrun" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      '<rect width="8" height="8" fill="#fff"/><rect width="3" height="8" fill="#d62728"/></pattern>' +
      '<pattern id="paused" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      '<rect width="8" height="8" fill="#f2f2f2"/><rect width="2" height="8" fill="#c8c8c8"/></pattern>' +
      '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">' +
      '<path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker>';
    svg.append(defs);
    // The axis: true time.
    const axis = el("svg:g", { class: "axis" });
    const step = niceStep(lastT / zoom());
    for (let t = 0; t <= lastT; t += step) {
      axis.append(el("svg:line", { x1: x(t), x2: x(t), y1: AXIS - 6, y2: totalH, stroke: "#eee" }));
      axis.append(el("svg:text", { x: x(t) + 2, y: AXIS - 10 }, secs(t) + " s"));
    }
    svg.append(axis);
    lanes.forEach((l, i) => {
      svg.append(el("svg:line", { x1: 0, x2: width, y1: top[i] + heightOf(l[1]), y2: top[i] + heightOf(l[1]), stroke: "#e4e4e4" }));
      for (const [from, to, kind] of downs[i]) {
        rect(svg, from, to, top[i] + 2, heightOf(l[1]) - 4, { fill: kind === "crash" ? "#555" : "url(#paused)", opacity: kind === "crash" ? 0.35 : 1 });
        label(svg, from, to, top[i] + heightOf(l[1]) - 6, kind === "crash" ? "crashed" : "paused", "dark-label");
      }
    });
    const laneIndex = (name) => lanes.findIndex((l) => l[0] === name);
    // Support first: a gap (red) is drawn over the too-thin support it stands for.
    for (const s of TRACE.support) {
      const i = laneIndex(s.node);
      if (i < 0) continue;
      rect(svg, s.from_t, s.to_t, top[i] + 30, 12, { fill: s.servers >= TRACE.quorum ? "#2e9e4f" : "#e0a800", class: "support" });
    }
    for (const b of TRACE.beliefs) {
      const i = laneIndex(b.node);
      if (i < 0) continue;
      const yy = top[i] + 6, colour = clientColour(b.node);
      const valid = b.valid_t === null ? b.end_t : Math.min(b.valid_t, b.end_t);
      const g = el("svg:g", { class: "belief", "data-node": b.node, "data-lease": b.lease });
      rect(g, b.from_t, valid, yy, 20, { fill: colour });
      label(g, b.from_t, valid, yy + 15, b.lease + " (its belief)", "bar-label");
      if (b.valid_t !== null && b.end_t > b.valid_t) {
        rect(g, b.valid_t, b.end_t, yy, 20, { fill: "url(#overrun)", stroke: "#d62728" });
      }
      for (const [from, to] of gaps(b)) {
        rect(g, from, to, yy + 24, 12, { fill: "#d62728", class: "gap" });
        label(g, from, to, yy + 52, "no quorum holds " + b.lease, "gap-label");
      }
      svg.append(g);
    }
    for (const h of TRACE.held) {
      const i = laneIndex(h.node);
      if (i < 0) continue;
      const yy = top[i] + 6, colour = h.owner ? clientColour(h.owner) : "#666";
      const g = el("svg:g", { class: "held", "data-node": h.node, "data-lease": h.lease });
      rect(g, h.from_t, h.end_t, yy, 20, h.serving ? { fill: colour } : { fill: "#fff", stroke: colour, "stroke-dasharray": "4 3" });
      const who = h.owner ? " (" + h.owner + ")" : "";
      label(g, h.from_t, h.end_t, yy + 15, h.lease + who, h.serving ? "bar-label" : "dark-label");
      if (h.expiry_t !== null && h.expiry_t <= h.end_t) {
        g.append(el("svg:line", { x1: x(h.expiry_t), x2: x(h.expiry_t), y1: yy - 3, y2: yy + 21, stroke: "#d62728", "stroke-width": 2 }));
      }
      if (h.end === "expired" || h.end === "lost in a crash") {
        g.append(el("svg:text", { x: x(h.end_t) + 3, y: yy + 36, class: "gap-label" }, h.end.toUpperCase()));
      }
      svg.append(g);
    }
    // The events: a mark each, in their lane's bottom row.
    const marks = el("svg:g", { id: "marks" });
    const onTop = [];
    events.forEach((e, idx) => {
      const i = laneOf(e), h = heightOf(lanes[i][1]);
      const bad = marked.has(idx);
      const r = el("svg:rect", {
        x: x(e[T]) - 1.5, y: top[i] + h - (bad ? 22 : 16), width: bad ? 5 : 3, height: bad ? 20 : 12,
        fill: bad ? "#b00020" : ["#b9b9b9", "#4a6fa5", "#e67300"][e[SAL]], class: "tick", "data-event-index": idx,
      });
      if (!shown[e[SAL]]) r.setAttribute("hidden", "");
      r.addEventListener("click", () => moveTo(idx));
      if (bad) onTop.push(r);
      else marks.append(r);
    });
    // A violating event's mark goes last, so no later event's mark covers it from a click.
    marks.append(...onTop);
    svg.append(marks);
    svg.append(el("svg:g", { id: "cursor-layer" }));
    drawCursor();
  }

  // ---- the cursor ----
  const byLane = lanes.map(() => []);
  events.forEach((e, i) => byLane[laneOf(e)].push(i));
  const msgEnds = new Map();
  events.forEach((e, i) => {
    if (e.length > MSG) {
      if (!msgEnds.has(e[MSG])) msgEnds.set(e[MSG], []);
      msgEnds.get(e[MSG]).push(i);
    }
  });
  // The last event of lane l at or before event index i.
  function lastOf(l, i) {
    const list = byLane[l];
    let lo = 0, hi = list.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid] <= i) lo = mid + 1; else hi = mid; }
    return lo > 0 ? list[lo - 1] : null;
  }
  const clocks = document.getElementById("clocks");
  clocks.append(el("tr", {}, ""));
  clocks.firstChild.innerHTML = "<th>node</th><th>wall (s)</th><th>mono (s)</th><th>as of</th>";
  const clockRows = lanes.map((l) => {
    const tr = el("tr", { id: "clock-" + l[0] });
    tr.append(el("td", {}, l[0]), el("td", { class: "wall" }), el("td", { class: "mono" }), el("td", { class: "asof" }));
    clocks.append(tr);
    return tr;
  });

  function drawCursor() {
    const c = Number(viewer.dataset.cursor);
    const e = events[c];
    const layer = document.getElementById("cursor-layer");
    if (!e || !layer) return;
    layer.replaceChildren();
    layer.append(el("svg:line", { x1: x(e[T]), x2: x(e[T]), y1: AXIS - 4, y2: totalH, stroke: "#111", "stroke-width": 2, "stroke-dasharray": "6 3" }));
    const i = laneOf(e);
    layer.append(el("svg:circle", { cx: x(e[T]), cy: top[i] + heightOf(lanes[i][1]) - 10, r: 8, fill: "none", stroke: "#111", "stroke-width": 3 }));
    if (e.length > MSG) {
      const ends = msgEnds.get(e[MSG]);
      const send = events[ends[0]], other = ends.length > 1 ? events[ends[ends.length - 1]] : null;
      if (other) {
        const ys = (ev) => top[laneOf(ev)] + heightOf(lanes[laneOf(ev)][1]) - 10;
        layer.append(el("svg:line", { x1: x(send[T]), y1: ys(send), x2: x(other[T]), y2: ys(other), stroke: other[KIND] === "drop" ? "#7a4bc2" : "#333", "stroke-width": 2, "marker-end": "url(#arrow)" }));
      }
    }
  }

  function showCursor() {
    const c = Number(viewer.dataset.cursor);
    const e = events[c];
    if (!e) return;
    drawCursor();
    const panel = document.getElementById("cursor-panel");
    panel.replaceChildren();
    panel.append(el("h2", {}, "Cursor"));
    const who = e[LANE] < 0 ? TRACE.network : lanes[e[LANE]][0];
    panel.append(el("p", { class: "when", id: "cursor-event", "data-event-index": c }, "event #" + c + " at " + secs(e[T]) + " s on " + who));
    panel.append(el("p", { id: "cursor-text" }, e[TEXT]));
    if (marked.has(c)) panel.append(el("p", { class: "marked" }, "VIOLATES " + marked.get(c).join(", ")));
    lanes.forEach((l, li) => {
      const row = clockRows[li];
      const at = lastOf(li, c);
      const cells = row.children;
      if (at === null || l[1] === "network") {
        for (const k of ["data-wall-ns", "data-mono-ns", "data-as-of"]) row.removeAttribute(k);
        cells[1].textContent = "—"; cells[2].textContent = "—";
        cells[3].textContent = l[1] === "network" ? "(no clock)" : "no event yet";
        return;
      }
      const a = events[at];
      row.setAttribute("data-wall-ns", a[WALL]);
      row.setAttribute("data-mono-ns", a[MONO]);
      row.setAttribute("data-as-of", at);
      cells[1].textContent = secs(a[WALL]);
      cells[2].textContent = secs(a[MONO]);
      cells[3].textContent = "#" + at + " at " + secs(a[T]) + " s";
    });
    rowEls.forEach((r) => r.classList.remove("cursor"));
    rowEls[c].classList.add("cursor");
    const box = rows;
    const top0 = rowEls[c].offsetTop - box.offsetTop;
    if (top0 < box.scrollTop || top0 > box.scrollTop + box.clientHeight - 24) box.scrollTop = top0 - box.clientHeight / 2;
    const cx = x(e[T]);
    if (cx < timeline.scrollLeft || cx > timeline.scrollLeft + timeline.clientWidth) timeline.scrollLeft = cx - timeline.clientWidth / 2;
  }

  function moveTo(i) {
    if (i < 0 || i >= events.length) return;
    viewer.dataset.cursor = i;
    showCursor();
  }
  const visible = (i) => shown[events[i][SAL]];
  function step(by) {
    let i = Number(viewer.dataset.cursor) + by;
    while (i >= 0 && i < events.length && !visible(i)) i += by;
    moveTo(i);
  }
  function edge(first) {
    let i = first ? 0 : events.length - 1;
    while (i >= 0 && i < events.length && !visible(i)) i += first ? 1 : -1;
    moveTo(i);
  }
  function setZoom(z) {
    const c = events[Number(viewer.dataset.cursor)];
    viewer.dataset.zoom = Math.min(1024, Math.max(1, z));
    draw();
    if (c) timeline.scrollLeft = x(c[T]) - timeline.clientWidth / 2;
  }
  function applyFilter() {
    rowEls.forEach((r, i) => r.toggleAttribute("hidden", !visible(i)));
    document.querySelectorAll("#marks .tick").forEach((r) => r.toggleAttribute("hidden", !visible(Number(r.dataset.eventIndex))));
  }

  document.getElementById("step-back").addEventListener("click", () => step(-1));
  document.getElementById("step-forward").addEventListener("click", () => step(1));
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(zoom() * 2));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(zoom() / 2));
  document.getElementById("zoom-fit").addEventListener("click", () => setZoom(1));
  document.addEventListener("keydown", (ev) => {
    const keys = {
      ArrowRight: () => step(1), ArrowLeft: () => step(-1), Home: () => edge(true), End: () => edge(false),
      "+": () => setZoom(zoom() * 2), "=": () => setZoom(zoom() * 2), "-": () => setZoom(zoom() / 2), "0": () => setZoom(1),
    };
    if (keys[ev.key] && !ev.ctrlKey && !ev.metaKey && !ev.altKey) { ev.preventDefault(); keys[ev.key](); }
  });
  window.addEventListener("resize", () => draw());
  // A link can open the page at an event, and zoomed: `#event=389` or `#event=389&zoom=4`.
  const fromHash = /^#event=(\d+)(?:&zoom=(\d+))?$/.exec(location.hash);
  viewer.dataset.cursor = fromHash ? Number(fromHash[1]) : 0;
  setZoom(fromHash && fromHash[2] ? Number(fromHash[2]) : 1);
  moveTo(Number(viewer.dataset.cursor));
})();
