// Compose's "Choose from library": a modal <dialog> listing the team's confirmed files (the
// dashboard's picker endpoint, a page at a time, searched by file name). Picking one hands it
// to compose.js as a "compose:pick" event, which adds it to the post as an upload is added.
// A modal dialog keeps focus inside itself and closes on Escape; focus then goes back to the
// button that opened it. Without JavaScript the button stays hidden and the library link serves.
(function () {
  "use strict";
  const form = document.getElementById("compose");
  const dialog = document.getElementById("media-picker");
  const opener = document.getElementById("media-pick");
  if (!form || !dialog || !opener || typeof dialog.showModal !== "function") return;
  const list = dialog.querySelector("[data-picker-list]");
  const status = dialog.querySelector("[data-picker-status]");
  const more = dialog.querySelector("[data-picker-more]");
  const search = dialog.querySelector("#media-picker-q");
  let nextPage = null;
  let query = "";
  let loading = null;
  const element = window.dashboard.element;

  function inPost(mediaId) {
    return Boolean(form.querySelector('#media-list input[name="media_ids"][value="' + CSS.escape(mediaId) + '"]'));
  }

  function entry(media) {
    const item = element("li", { class: "picker-item" });
    const button = element("button", { type: "button", class: "picker-choice" });
    if (media.content_type.startsWith("video/")) {
      button.appendChild(element("span", { class: "picker-thumb picker-video", "aria-hidden": "true" }, "▶"));
    } else {
      button.appendChild(element("img", { class: "picker-thumb", src: media.preview_url, alt: "", loading: "lazy" }));
    }
    button.appendChild(element("span", { class: "picker-name" }, media.filename));
    const added = inPost(media.media_id);
    if (added) button.appendChild(element("span", { class: "muted" }, "In the post"));
    button.disabled = added;
    button.addEventListener("click", function () {
      form.dispatchEvent(new CustomEvent("compose:pick", { detail: media }));
      dialog.close();
    });
    item.appendChild(button);
    return item;
  }

  async function load(page) {
    if (loading) loading.abort();
    loading = new AbortController();
    const url = dialog.dataset.pickerUrl + "&page=" + page + (query ? "&q=" + encodeURIComponent(query) : "");
    status.textContent = "Loading…";
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", signal: loading.signal });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const answer = await response.json();
      if (page === 1) list.replaceChildren();
      const shown = list.children.length;
      answer.items.forEach(function (media) {
        list.appendChild(entry(media));
      });
      nextPage = answer.next_page;
      more.hidden = nextPage === null;
      status.textContent = counted(answer.count);
      // "Show more" may have just hidden itself: focus moves on to the first file it added.
      const first = page > 1 && list.children[shown];
      if (first) first.querySelector("button").focus();
    } catch (error) {
      if (error.name !== "AbortError") status.textContent = "The library could not be read just now: try again.";
    }
  }

  function counted(count) {
    if (count === 0) return query ? "No file name contains “" + query + "”." : "No files yet: upload one first.";
    const files = count + (count === 1 ? " file" : " files");
    return query ? files + (count === 1 ? " matches." : " match.") : files + " in the library.";
  }

  opener.hidden = false;
  opener.addEventListener("click", function () {
    dialog.showModal();
    load(1); // afresh at every opening: the post's media and the library may have changed
    search.focus();
  });
  dialog.addEventListener("close", function () {
    opener.focus();
  });
  // A modal dialog makes the page behind it inert, but Tab past its last control would leave
  // for the browser's own toolbar: it wraps round to the first instead (and Shift+Tab back).
  dialog.addEventListener("keydown", function (event) {
    if (event.key !== "Tab") return;
    const controls = Array.from(dialog.querySelectorAll("button, input")).filter(function (control) {
      return !control.disabled && control.offsetParent !== null;
    });
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey ? document.activeElement === first : document.activeElement === last) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  });
  dialog.querySelector("[data-picker-close]").addEventListener("click", function () {
    dialog.close();
  });
  dialog.querySelector("[data-picker-search]").addEventListener("submit", function (event) {
    event.preventDefault();
    query = search.value.trim();
    load(1);
  });
  more.addEventListener("click", function () {
    if (nextPage !== null) load(nextPage);
  });
})();
