// A run page's live event list: an EventSource on /runs/RUN/stream (the session cookie signs it; no token).
// It keeps the last seq it has shown and shows each event once: a reconnect the browser makes by itself sends
// Last-Event-ID, and a fresh EventSource opened after a drop asks for ?after=LAST, so the server resumes exactly.
// window.alicornLive holds what a test (or a curious person) may read: shown, received, duplicates, opened, drop().
"use strict";
(function () {
  const box = document.getElementById("live-events");
  if (!box || window.alicornLive) return;
  const list = box.querySelector("ol");
  const state = box.querySelector("[data-role=state]");
  const words = box.dataset;
  const live = { last: 0, shown: 0, received: 0, duplicates: 0, opened: 0, source: null };
  window.alicornLive = live;

  function say(text) { if (state) state.textContent = text; }
  function summary(event) {
    const d = event.data || {};
    const about = d.node || d.node_id || d.status || d.decision || "";
    return about ? `${event.kind} · ${about}` : event.kind;
  }
  function show(message) {
    live.received += 1;
    const seq = Number(message.lastEventId);
    if (!Number.isInteger(seq) || seq <= live.last) { live.duplicates += 1; return; }
    let event = {};
    try { event = JSON.parse(message.data); } catch (e) { event = { kind: "?" }; }
    const item = document.createElement("li");
    item.dataset.seq = String(seq);
    const number = document.createElement("span");
    number.className = "seq";
    number.textContent = `#${seq}`;
    item.append(number, " ", summary(event));
    const following = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.append(item);
    if (following) list.scrollTop = list.scrollHeight;  // keep the newest in view unless the reader scrolled up
    live.last = seq;
    live.shown += 1;
  }
  function open() {
    if (live.source) live.source.close();
    const source = new EventSource(`${box.dataset.stream}?after=${live.last}`);
    live.source = source;
    live.opened += 1;
    say(words.connecting);
    source.onopen = () => say(words.connected);
    source.onmessage = show;
    source.onerror = () => {
      say(words.reconnecting);
      if (source.readyState === EventSource.CLOSED && live.source === source) setTimeout(open, 2000);
    };
  }
  // Drop the connection and open a new one from the last event shown (what a flaky network does to a page).
  live.drop = open;
  open();
})();
