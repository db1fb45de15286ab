// Every dashboard page: a select marked data-submit-on-change (the team switcher) submits its
// form when a choice is made. Here rather than in an onchange attribute, which the page's
// Content-Security-Policy refuses to run. `dashboard.element` builds an element for the pages'
// own scripts (they run after this one: deferred scripts run in order).
"use strict";

window.dashboard = {
  element(tag, attributes, text) {
    const made = document.createElement(tag);
    Object.entries(attributes || {}).forEach(([name, value]) => made.setAttribute(name, value));
    if (text !== undefined) made.textContent = text;
    return made;
  },
};

document.querySelectorAll("select[data-submit-on-change]").forEach((select) => {
  select.addEventListener("change", () => select.form.submit());
});
