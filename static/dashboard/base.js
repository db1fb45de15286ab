// Every dashboard page: a select marked data-submit-on-change (the team switcher) submits its
// form when a choice is made. Here rather than in an onchange attribute, which the page's
// Content-Security-Policy refuses to run.
"use strict";

document.querySelectorAll("select[data-submit-on-change]").forEach((select) => {
  select.addEventListener("change", () => select.form.submit());
});
