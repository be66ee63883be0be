// zlite inspector: live updates and confirmation dialogs. The pages work without
// this script; with it, each sample the server announces on the page's event
// stream (data-events on <main>) re-reads the page and swaps in its live regions
// (elements with data-live and an id), leaving alone a region that holds the
// keyboard focus or a ticked checkbox; and the bulk form asks in a dialog instead
// of on a confirmation page.
"use strict";
(function () {
  // Delegated from the document: a live refresh may replace the form.
  document.addEventListener("submit", function (e) {
    // getAttribute: the form's inputs named "id" shadow its id property.
    var bulk = e.target, dialog = bulk.getAttribute && bulk.getAttribute("id") === "bulk" && bulk.querySelector("dialog");
    if (!dialog || !dialog.showModal) { return; }
    var yes = dialog.querySelector("[data-confirm]");
    if (e.submitter === yes) { return; } // confirmed: post with confirm=yes
    e.preventDefault();
    var n = document.querySelectorAll("input[type=checkbox][form=bulk]:checked").length;
    var sel = bulk.querySelector("select[name=action]");
    var what = sel.options[sel.selectedIndex].text;
    dialog.querySelector("[data-confirm-text]").textContent = n === 0 ?
      "Select items first." : what + ": " + n + " selected item" + (n === 1 ? "" : "s") + "?";
    yes.hidden = n === 0;
    dialog.showModal();
  });
  document.addEventListener("click", function (e) {
    var d = e.target.closest && e.target.closest("dialog");
    if (d && e.target.hasAttribute("data-cancel")) { d.close(); }
  });
  var main = document.getElementById("main");
  if (!main || !main.dataset.events || !window.EventSource || !window.fetch) { return; }
  var status = document.querySelector("[data-live-status]");
  var busy = false, again = false;
  function busyRegion(el) {
    return el.contains(document.activeElement) && document.activeElement !== document.body ||
      el.querySelector("input[type=checkbox]:checked") !== null;
  }
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        doc.querySelectorAll("[data-live][id]").forEach(function (fresh) {
          var old = document.getElementById(fresh.id);
          if (old && !busyRegion(old)) { old.replaceWith(document.importNode(fresh, true)); }
        });
        var t = doc.querySelector("header time"), ot = document.querySelector("header time");
        if (t && ot) { ot.replaceWith(document.importNode(t, true)); }
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }
  var src = new EventSource(main.dataset.events);
  src.addEventListener("sample", function () {
    if (status) { status.hidden = false; status.textContent = "Live"; }
    refresh(); // the first event too: the page may have changed since it was served
  });
  src.addEventListener("error", function () {
    if (status) { status.textContent = "Reconnecting"; }
  });
})();
