// Settings pages: the Copy button beside a secret shown once. Without JavaScript (or clipboard
// access) the secret is still on the page to select and copy by hand.
(function () {
  "use strict";

  function copied(button, text) {
    var status = document.querySelector("[data-copy-status]");
    if (status) status.textContent = text;
    button.textContent = text === "Copied." ? "Copied" : "Copy";
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      var text = source.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(
          function () { copied(button, "Copied."); },
          function () { selectText(source); copied(button, "Selected: press Ctrl+C (⌘C) to copy."); }
        );
      } else {
        selectText(source);
        copied(button, "Selected: press Ctrl+C (⌘C) to copy.");
      }
    });
  });
})();
