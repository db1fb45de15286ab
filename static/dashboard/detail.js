// The publish detail page: while the publish is being sent, fetch the delivery section every
// 2 s (?fragment=targets) and swap it in, until the publish settles. A settled page does not
// poll at all. The section is an aria-live="polite" region: it is replaced only when the
// delivery changed (its fingerprint), so a change is announced and nothing else is. A
// platform may take many minutes to process a video: after five, a page left open asks every
// 10 s instead.
(function () {
  "use strict";
  var region = document.getElementById("delivery");
  if (!region || !window.fetch) return;
  var INTERVAL = 2000;
  var SLOWER = 10000;
  var started = Date.now();

  function later() {
    window.setTimeout(poll, Date.now() - started > 5 * 60 * 1000 ? SLOWER : INTERVAL);
  }

  function settled() {
    var inner = region.querySelector("[data-settled]");
    return !inner || inner.getAttribute("data-settled") === "true";
  }

  function fingerprint(root) {
    var inner = root.querySelector("[data-fingerprint]");
    return inner ? inner.getAttribute("data-fingerprint") : "";
  }

  function swap(response) {
    // Gone (discarded) or signed out (redirected to the login page): stop asking.
    if (!response.ok || response.redirected) return;
    return response.text().then(function (html) {
      var fresh = document.createElement("template");
      fresh.innerHTML = html;
      if (fingerprint(fresh.content) !== fingerprint(region)) region.innerHTML = html;
      if (!settled()) later();
    });
  }

  function poll() {
    fetch(region.getAttribute("data-fragment-url"), { credentials: "same-origin", cache: "no-store" })
      .then(swap)
      .catch(function () {
        // No answer (the server restarting, a dropped connection): try again a little later.
        window.setTimeout(poll, SLOWER);
      });
  }

  if (!settled()) later();
})();
