// The compose page's live parts. Counting and checking stay on the server: as the user types,
// the form's state goes (debounced) to the check endpoint, which runs the create's own rules
// and each platform's own count, and this only draws the answer. Media are compose-media.js's:
// it says "compose:media" on the form when the post's files change (a new check is due) and
// keeps the number of uploads under way in the form's data-uploading.
(function () {
  "use strict";
  const form = document.getElementById("compose");
  if (!form) return;
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const fileInput = document.getElementById("media-file");
  const element = window.dashboard.element;
  const counts = document.getElementById("counts");
  const state = document.getElementById("check-state");
  const DEBOUNCE_MS = 300;

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

  // A text an account already got (or is set to get) within the team's window: a note beside
  // the account. Where the team refuses duplicates, the check says so as the target's problem.
  function drawDuplicates(duplicates) {
    const notes = new Map(duplicates.map(function (entry) {
      return [entry.account_id, entry.message];
    }));
    targets().forEach(function (target) {
      const note = target.querySelector("[data-warning]");
      if (note) note.textContent = (chosen(target) && notes.get(target.dataset.account)) || "";
    });
  }

  function draw(result) {
    const byAccount = new Map((result.targets || []).map(function (entry) {
      return [entry.account_id, entry];
    }));
    const duplicates = result.duplicates || [];
    drawCounts(byAccount);
    drawQueue(result.queue);
    drawDuplicates(duplicates);
    // A post that is ready has no problem left to show, whatever a refused submit or a failed
    // upload said before.
    if (result.ok) keepProblems = false;
    if (!keepProblems) drawProblems(result, byAccount);
    const problems = (result.problems || []).length + (result.targets || []).reduce(function (sum, entry) {
      return sum + (entry.problems || []).length;
    }, 0);
    if (!result.ok) {
      state.textContent = problems + (problems === 1 ? " problem" : " problems") + " to fix before sending.";
    } else if (duplicates.length) {
      state.textContent = "Ready to send, but an account already got this text: see the note beside it.";
    } else {
      state.textContent = "Ready to send.";
    }
  }

  // "Add to queue": the chosen accounts' next free slot, or why there is none and where to set it.
  const queueState = document.getElementById("queue-state");
  function drawQueue(queue) {
    if (!queueState) return;
    queue = queue || {};
    queueState.replaceChildren();
    if (queue.problem) {
      queueState.append(element("span", { class: "problem-text" }, queue.problem));
      if (queue.schedule_url) queueState.append(" ", element("a", { href: queue.schedule_url }, queue.schedule_text));
    } else if (queue.next_slot) {
      queueState.append(queue.next_slot);
    }
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

  form.addEventListener("compose:media", scheduleCheck);

  let submitting = false;
  form.addEventListener("submit", function (event) {
    const wait = document.getElementById("media-problem");
    if (Number(form.dataset.uploading || 0) > 0) {
      event.preventDefault();
      wait.textContent = "Wait until the uploads have finished.";
      return;
    }
    if (submitting) event.preventDefault();
    submitting = true;
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
