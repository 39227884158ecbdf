// toolgate console: live updates over server-sent events, and keyboard shortcuts.
// Hand-written, no dependencies. A page names what it shows in <body data-live="...">;
// when the server says one of those changed, the page's <main> is fetched again and
// swapped in place (no reload: focus, scroll and the search box stay).
"use strict";
(function () {
  var live = (document.body.dataset.live || "").split(" ").filter(Boolean);
  var status = document.getElementById("live");
  var busy = false, again = false;

  function say(text) { if (status) { status.textContent = text; } }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
      .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("main");
        var main = document.getElementById("main");
        if (!fresh || !main) { return; }
        var seen = {};
        main.querySelectorAll("[data-id]").forEach(function (e) { seen[e.dataset.id] = true; });
        var active = document.activeElement && document.activeElement.id;
        var typed = document.getElementById("q");
        var value = typed ? typed.value : null;
        main.replaceWith(fresh);
        fresh.querySelectorAll("[data-id]").forEach(function (e) {
          if (!seen[e.dataset.id]) { e.classList.add("flash-new"); }
        });
        if (value !== null && document.getElementById("q")) { document.getElementById("q").value = value; }
        if (active && document.getElementById(active)) { document.getElementById(active).focus(); }
        say("live, updated " + new Date().toLocaleTimeString());
      })
      .catch(function (e) { say("update failed: " + e.message); })
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  if (live.length && window.EventSource) {
    var source = new EventSource("/ui/events");
    source.onopen = function () { say("live"); };
    source.onerror = function () { say("reconnecting…"); };
    live.forEach(function (kind) { source.addEventListener(kind, refresh); });
    // The server compares from here on: fetch once for what changed before.
    source.addEventListener("ready", function () { document.body.dataset.ready = "1"; refresh(); });
  }

  // Keys: "g" then a page's letter goes there; "/" focuses the search box.
  var pending = false;
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) { return; }
    if (pending) {
      pending = false;
      var link = document.querySelector('header nav a[data-key="' + e.key + '"]');
      if (link) { e.preventDefault(); location.href = link.getAttribute("href"); }
      return;
    }
    if (e.key === "g") { pending = true; setTimeout(function () { pending = false; }, 1500); return; }
    if (e.key === "/") {
      var box = document.querySelector("[data-search]");
      if (box) { e.preventDefault(); box.focus(); box.select(); }
    }
  });
})();
