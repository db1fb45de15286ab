// The compose form's media (compose and edit pages). Files go straight from the browser to
// storage: ask for an upload, PUT the bytes to its presigned URL (progress shown), then confirm
// it; a confirmed upload joins the form as a hidden media_ids input, with its alt text field,
// and each account's own-media chooser offers it. A file picked in the library dialog
// (media-picker.js, a "compose:pick" event) joins it the same way. compose.js hears of each
// change ("compose:media", to check the post again) and reads the uploads under way from the
// form's data-uploading (sending waits for them).
(function () {
  "use strict";
  const form = document.getElementById("compose");
  if (!form) return;
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const team = form.querySelector("input[name=team]").value;
  const mediaList = document.getElementById("media-list");
  const fileInput = document.getElementById("media-file");
  // Headers a page may not set itself; the browser sends the right Content-Length on its own.
  const FORBIDDEN = new Set(["content-length", "host", "connection"]);
  const element = window.dashboard.element;

  function changed() {
    form.dispatchEvent(new Event("compose:media"));
  }

  function counted(step) {
    form.dataset.uploading = String(Number(form.dataset.uploading || 0) + step);
  }

  function targets() {
    return Array.from(form.querySelectorAll(".target"));
  }

  async function postForm(url, fields) {
    const response = await fetch(url, {
      method: "POST",
      body: new URLSearchParams(fields),
      headers: { "X-CSRFToken": csrf, Accept: "application/json" },
      credentials: "same-origin",
    });
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error ? body.error.message : "The server refused the upload (HTTP " + response.status + ").";
      throw new Error(message);
    }
    return body;
  }

  function refusal(xhr) {
    try {
      const body = JSON.parse(xhr.responseText);
      if (body && body.error && body.error.message) return body.error.message;
    } catch (error) {
      // S3 answers XML: the status says enough.
    }
    return "Storage refused the file (HTTP " + xhr.status + ").";
  }

  function send(item, upload, file, progress) {
    return new Promise(function (resolve, reject) {
      const xhr = new XMLHttpRequest();
      item.abortUpload = function () {
        xhr.abort();
      };
      xhr.open("PUT", upload.upload_url);
      Object.entries(upload.headers || {}).forEach(function ([name, value]) {
        if (!FORBIDDEN.has(name.toLowerCase())) xhr.setRequestHeader(name, value);
      });
      xhr.upload.onprogress = function (event) {
        if (event.lengthComputable) progress(event.loaded / event.total);
      };
      xhr.onload = function () {
        if (xhr.status >= 200 && xhr.status < 300) resolve();
        else reject(new Error(refusal(xhr)));
      };
      xhr.onerror = function () {
        reject(new Error("The file did not reach storage (network error or a bucket without CORS)."));
      };
      xhr.onabort = function () {
        reject(new Error("Upload cancelled."));
      };
      xhr.send(file);
    });
  }

  function newItem(file) {
    const item = element("li", { class: "media-item" });
    const preview = URL.createObjectURL(file);
    item.previewUrl = preview;
    const video = file.type.startsWith("video/");
    // Only a picture or a video has a preview: anything else would draw a broken image.
    if (video || file.type.startsWith("image/")) {
      item.appendChild(element(video ? "video" : "img", video ? { src: preview, muted: "", preload: "metadata" } : { src: preview, alt: "" }));
    }
    item.appendChild(element("span", { class: "media-name" }, file.name));
    const bar = element("progress", { max: "100", value: "0", "aria-label": "Upload of " + file.name });
    item.appendChild(bar);
    item.appendChild(element("span", { class: "media-status", role: "status" }, "Starting…"));
    item.appendChild(element("button", { type: "button", class: "quiet danger media-remove", "aria-label": "Remove " + file.name }, "Remove"));
    mediaList.appendChild(item);
    return item;
  }

  function offer(mediaId, filename) {
    // Each account's "media for this account" chooser gains the new upload.
    targets().forEach(function (target) {
      const choices = target.querySelector("[data-media-choices]");
      if (!choices) return;
      const empty = choices.querySelector("[data-no-media]");
      if (empty) empty.remove();
      const label = element("label", { class: "check", "data-media": mediaId });
      label.appendChild(element("input", { type: "checkbox", name: "t-" + target.dataset.account + "-media", value: mediaId }));
      label.appendChild(document.createTextNode(" " + filename));
      choices.appendChild(label);
    });
  }

  function describe(item, mediaId, filename, altText) {
    // The same field the server draws for the media of a re-rendered form.
    const name = "media-alt-" + mediaId;
    const label = element("label", { for: name }, "Alt text");
    label.appendChild(element("span", { class: "visually-hidden" }, " for " + filename));
    const field = element("textarea", {
      id: name, name: name, class: "media-alt", rows: "2", maxlength: mediaList.dataset.altMax,
      "aria-describedby": "media-alt-hint " + name + "-problem",
    });
    field.value = altText || "";
    const remove = item.querySelector(".media-remove");
    item.insertBefore(label, remove);
    item.insertBefore(field, remove);
    item.insertBefore(element("p", { class: "field-problem", id: name + "-problem" }), remove);
  }

  function attach(item, media) {
    // What an upload and a pick share once the file is confirmed: the form sends it, the
    // accounts may choose it, and the check runs again.
    item.dataset.media = media.media_id;
    item.classList.add("done");
    describe(item, media.media_id, media.filename, media.alt_text);
    item.appendChild(element("input", { type: "hidden", name: "media_ids", value: media.media_id }));
    offer(media.media_id, media.filename);
    changed();
  }

  function picked(media) {
    const item = element("li", { class: "media-item" });
    const video = media.content_type.startsWith("video/");
    item.appendChild(element(video ? "video" : "img", video ? { src: media.preview_url, muted: "", preload: "metadata" } : { src: media.preview_url, alt: "" }));
    item.appendChild(element("span", { class: "media-name" }, media.filename));
    item.appendChild(element("span", { class: "media-status", role: "status" }, "From the library"));
    item.appendChild(element("button", { type: "button", class: "quiet danger media-remove", "aria-label": "Remove " + media.filename }, "Remove"));
    mediaList.appendChild(item);
    attach(item, media);
  }

  form.addEventListener("compose:pick", function (event) {
    const media = event.detail;
    if (mediaList.querySelector('[data-media="' + CSS.escape(media.media_id) + '"]')) return; // already in the post
    document.getElementById("media-problem").textContent = "";
    picked(media);
  });

  async function upload(file) {
    const item = newItem(file);
    const bar = item.querySelector("progress");
    const status = item.querySelector(".media-status");
    const problem = document.getElementById("media-problem");
    counted(1);
    try {
      const created = await postForm(form.dataset.uploadUrl, {
        team: team, filename: file.name, content_type: file.type, size_bytes: String(file.size),
      });
      if (!item.isConnected) return; // removed while asking
      item.dataset.media = created.media_id;
      status.textContent = "Uploading… 0%";
      await send(item, created, file, function (done) {
        bar.value = Math.min(99, Math.round(done * 100));
        status.textContent = "Uploading… " + bar.value + "%";
      });
      status.textContent = "Checking the file…";
      const confirmed = await postForm(created.confirm_url, { team: team });
      if (!item.isConnected) return; // removed while confirming
      bar.value = 100;
      status.textContent = "Uploaded";
      attach(item, { media_id: confirmed.media_id, filename: confirmed.filename, alt_text: "" });
    } catch (error) {
      if (!item.isConnected) return;
      // The file is not in the post: its preview goes, and the reason is told by the field.
      URL.revokeObjectURL(item.previewUrl);
      item.remove();
      problem.textContent = (problem.textContent + " " + file.name + ": " + error.message).trim();
    } finally {
      counted(-1);
    }
  }

  fileInput.addEventListener("change", function () {
    document.getElementById("media-problem").textContent = "";
    Array.from(fileInput.files).forEach(upload);
    fileInput.value = "";
  });

  mediaList.addEventListener("click", function (event) {
    const button = event.target.closest(".media-remove");
    if (!button) return;
    const item = button.closest(".media-item");
    if (item.abortUpload) item.abortUpload();
    if (item.previewUrl) URL.revokeObjectURL(item.previewUrl);
    if (item.dataset.media) {
      form.querySelectorAll('[data-media-choices] [data-media="' + CSS.escape(item.dataset.media) + '"]').forEach(function (choice) {
        choice.remove();
      });
    }
    item.remove();
    fileInput.focus();
    changed();
  });
})();
