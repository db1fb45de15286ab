// The compose page's live parts. Counting and checking stay on the server: as the user types,
// the form's state goes (debounced) to the check endpoint, which runs the create's own rules
// and each platform's own count, and this only draws the answer. Media go straight from the
// browser to storage: ask for an upload, PUT the bytes to its presigned URL (progress shown),
// then confirm it; a confirmed upload joins the form as a hidden media_ids input, with its alt
// text field. A file picked in the library dialog (media-picker.js, a "compose:pick" event)
// joins it the same way.
(function () {
  "use strict";
  const form = document.getElementById("compose");
  if (!form) return;
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const team = form.querySelector("input[name=team]").value;
  const mediaList = document.getElementById("media-list");
  const fileInput = document.getElementById("media-file");
  const counts = document.getElementById("counts");
  const state = document.getElementById("check-state");
  // Headers a page may not set itself; the browser sends the right Content-Length on its own.
  const FORBIDDEN = new Set(["content-length", "host", "connection"]);
  const DEBOUNCE_MS = 300;
  let uploading = 0;

  // --- the live check ----------------------------------------------------------------------

  let timer = null;
  let sequence = 0;
  let inflight = null;
  // After a refused submit the server's own problems are on the page: the first check only
  // draws the counts, so they stay until the user changes something.
  let keepProblems = Boolean(form.querySelector(".field-problem:not(:empty), [data-problem-top=general]:not([hidden])"));

  function scheduleCheck() {
    clearTimeout(timer);
    timer = setTimeout(check, DEBOUNCE_MS);
  }

  function targets() {
    return Array.from(form.querySelectorAll(".target"));
  }

  function chosen(target) {
    const pick = target.querySelector(".pick");
    return Boolean(pick && pick.checked);
  }

  async function check() {
    if (inflight) inflight.abort();
    inflight = new AbortController();
    const mine = ++sequence;
    state.textContent = "Checking…";
    try {
      const response = await fetch(form.dataset.checkUrl, {
        method: "POST",
        body: new FormData(form),
        headers: { "X-CSRFToken": csrf, Accept: "application/json" },
        credentials: "same-origin",
        signal: inflight.signal,
      });
      const json = (response.headers.get("Content-Type") || "").includes("application/json");
      if (!response.ok || !json) throw new Error("HTTP " + response.status);
      const result = await response.json();
      if (mine === sequence) {
        draw(result);
        form.dispatchEvent(new CustomEvent("compose:checked", { detail: result })); // preview.js
      }
    } catch (error) {
      if (error.name !== "AbortError" && mine === sequence) state.textContent = "The post could not be checked just now.";
    }
  }

  function fieldOf(name) {
    // media[2] is shown by the media; a serializer's names by the inputs they concern.
    const base = String(name).split("[")[0];
    return { content: "text", media_ids: "media", account_id: "*", account: "*" }[base] || base;
  }

  function put(element, messages) {
    if (!element) return;
    element.textContent = messages.join(" ");
    if (element.dataset.problemTop === "general") element.hidden = messages.length === 0;
  }

  function grouped(problems, where) {
    const found = new Map();
    problems.forEach(function (problem) {
      const element = where(problem.field);
      if (!found.has(element)) found.set(element, []);
      found.get(element).push(problem.message);
    });
    return found;
  }

  function drawProblems(result, byAccount) {
    form.querySelectorAll("[data-problem], [data-problem-top]").forEach(function (element) {
      put(element, []);
    });
    const general = form.querySelector("[data-problem-top=general]");
    grouped(result.problems || [], function (name) {
      return form.querySelector('[data-problem-top="' + CSS.escape(String(name)) + '"]') || general;
    }).forEach(function (messages, element) {
      put(element, messages);
    });
    targets().forEach(function (target) {
      const entry = byAccount.get(target.dataset.account);
      if (!entry || !chosen(target)) return;
      grouped(entry.problems || [], function (name) {
        const field = CSS.escape(fieldOf(name));
        return target.querySelector('[data-problem="' + field + '"]') || target.querySelector('[data-problem="*"]');
      }).forEach(function (messages, element) {
        put(element, messages);
      });
    });
  }

  function countText(entry) {
    if (entry.length === null || entry.length === undefined) return "";
    return entry.limit ? entry.length + " / " + entry.limit : String(entry.length);
  }

  function drawCounts(byAccount) {
    counts.textContent = "";
    targets().forEach(function (target) {
      const entry = chosen(target) ? byAccount.get(target.dataset.account) : null;
      const over = Boolean(entry && entry.limit && entry.length > entry.limit);
      const text = entry ? countText(entry) : "";
      target.querySelectorAll("[data-count]").forEach(function (element) {
        element.textContent = text ? (over ? text + " (over by " + (entry.length - entry.limit) + ")" : text) : "";
        element.classList.toggle("over", over);
      });
      if (!entry || !text) return;
      const item = document.createElement("li");
      item.dataset.account = target.dataset.account;
      item.classList.toggle("over", over);
      const name = target.querySelector(".target-head strong").textContent;
      item.textContent = name + " " + text + (over ? " — too long by " + (entry.length - entry.limit) : "");
      counts.appendChild(item);
    });
  }

  function draw(result) {
    const byAccount = new Map((result.targets || []).map(function (entry) {
      return [entry.account_id, entry];
    }));
    drawCounts(byAccount);
    // A post that is ready has no problem left to show, whatever a refused submit or a failed
    // upload said before.
    if (result.ok) keepProblems = false;
    if (!keepProblems) drawProblems(result, byAccount);
    const problems = (result.problems || []).length + (result.targets || []).reduce(function (sum, entry) {
      return sum + (entry.problems || []).length;
    }, 0);
    state.textContent = result.ok ? "Ready to send." : problems + (problems === 1 ? " problem" : " problems") + " to fix before sending.";
  }

  // The customize box's summary says which text the account gets: the post's, its own, or none.
  function drawTextState(target) {
    const shown = target && target.querySelector("[data-text-state]");
    if (!shown) return;
    const own = target.querySelector("textarea.override").value;
    const none = target.querySelector("[data-no-text]").checked;
    shown.textContent = "· " + (own ? "Its own text" : none ? "No text: its own text is empty" : "Same as the main text");
  }

  // Alt text is the upload's, saved when the form is sent: the check has nothing to say of it.
  function isAlt(target) {
    return target.classList.contains("media-alt");
  }

  form.addEventListener("input", function (event) {
    if (event.target === fileInput) return;
    if (isAlt(event.target)) {
      event.target.removeAttribute("aria-invalid");
      document.getElementById(event.target.id + "-problem").textContent = "";
      return;
    }
    keepProblems = false;
    drawTextState(event.target.closest(".target"));
    scheduleCheck();
  });
  form.addEventListener("change", function (event) {
    if (event.target === fileInput || isAlt(event.target)) return;
    keepProblems = false;
    drawTextState(event.target.closest(".target"));
    scheduleCheck();
  });

  // Enter in a one-line input would "click" Publish now: sending takes a button.
  form.addEventListener("keydown", function (event) {
    const input = event.target;
    if (event.key === "Enter" && input.tagName === "INPUT" && !["submit", "button"].includes(input.type)) {
      event.preventDefault();
    }
  });

  let submitting = false;
  form.addEventListener("submit", function (event) {
    const wait = document.getElementById("media-problem");
    if (uploading > 0) {
      event.preventDefault();
      wait.textContent = "Wait until the uploads have finished.";
      return;
    }
    if (submitting) event.preventDefault();
    submitting = true;
  });

  // --- media ---------------------------------------------------------------------------------

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

  function element(tag, attributes, text) {
    const made = document.createElement(tag);
    Object.entries(attributes || {}).forEach(function ([name, value]) {
      made.setAttribute(name, value);
    });
    if (text !== undefined) made.textContent = text;
    return made;
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
    scheduleCheck();
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
    uploading += 1;
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
      uploading -= 1;
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
    scheduleCheck();
  });

  // --- live options ------------------------------------------------------------------------
  // Once an account is chosen, its capabilities (the platform_settings schema with the options
  // its platform offers it now folded in: TikTok privacy levels, Pinterest boards, YouTube
  // categories) turn its settings' choices into those, and lock what the platform turned off.

  const asked = new Set();

  function labelled(property) {
    const titles = new Map((property.oneOf || []).map(function (choice) {
      return [String(choice.const), choice.title];
    }));
    return property.enum.map(function (value) {
      return [String(value), titles.get(String(value)) || String(value)];
    });
  }

  function asSelect(input) {
    if (input.tagName === "SELECT") return input;
    // A free-text setting (YouTube's category id) becomes a choice among what is offered.
    const select = element("select", { id: input.id, name: input.name });
    select.append(element("option", { value: "" }, "Platform default"));
    select.dataset.typed = input.value;
    input.replaceWith(select);
    return select;
  }

  function offerChoices(input, property) {
    const select = asSelect(input);
    const current = select.value || select.dataset.typed || "";
    const blank = select.querySelector('option[value=""]');
    select.replaceChildren.apply(select, blank ? [blank] : []);
    labelled(property).forEach(function ([value, label]) {
      const option = element("option", { value: value }, label);
      option.selected = value === current;
      select.append(option);
    });
  }

  function drawLive(target, data) {
    const live = data.live;
    const note = target.querySelector("[data-live-options]");
    if (note && live.supported) {
      note.hidden = false;
      note.textContent = live.available
        ? "The choices below are the ones the platform offers this account."
        : "The platform's own choices could not be read just now (" + live.error.message + ").";
    }
    if (!live.available) return;
    Object.entries(data.platform_settings_schema.properties || {}).forEach(function ([key, property]) {
      const input = document.getElementById("t-" + target.dataset.account + "-" + key);
      if (!input) return;
      if (property.type === "string" && Array.isArray(property.enum)) offerChoices(input, property);
      if (property.const === false && input.type === "checkbox") {
        input.checked = false;
        input.disabled = true;
      }
    });
  }

  async function loadCapabilities(target) {
    const url = target.dataset.capabilitiesUrl;
    if (!url || asked.has(target)) return;
    asked.add(target);
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      drawLive(target, (await response.json()).data);
    } catch (error) {
      asked.delete(target); // asked again at the next pick
    }
  }

  form.addEventListener("change", function (event) {
    if (event.target.classList.contains("pick") && event.target.checked) {
      loadCapabilities(event.target.closest(".target"));
    }
  });
  targets().filter(chosen).forEach(loadCapabilities);

  if (targets().some(chosen) || document.getElementById("content").value) check();
})();
