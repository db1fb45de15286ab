// The compose page's preview: one card per chosen account, drawn from the live check's answer
// (compose.js sends "compose:checked"). What each network keeps of the text and the part over
// its limit come from the server, counted as the network counts; how each feed folds a caption,
// crops an image and shows a link is the page's data-feeds. Nothing here counts or holds a limit.
(function () {
  "use strict";
  const form = document.getElementById("compose");
  const section = form && form.querySelector(".preview");
  if (!section) return;
  const feeds = JSON.parse(section.dataset.feeds);
  const list = section.querySelector("[data-preview-cards]");
  const empty = section.querySelector("[data-preview-empty]");
  let last = { targets: [], previews: {} };

  function element(tag, className, text) {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined) made.textContent = text;
    return made;
  }

  function chosenTargets() {
    return Array.from(form.querySelectorAll(".target")).filter(function (target) {
      const pick = target.querySelector(".pick");
      return pick && pick.checked;
    });
  }

  function who(target) {
    const label = target.querySelector(".target-head label span");
    const network = label.querySelector("strong").textContent.trim();
    const handle = label.querySelector(".muted").textContent.trim();
    const name = label.textContent.replace(network, "").replace(handle, "").trim();
    return { network: network, handle: handle, name: name };
  }

  function ownText(target) {
    const own = form.querySelector("#t-" + CSS.escape(target.dataset.account) + "-content");
    return own && own.value ? own.value : document.getElementById("content").value;
  }

  // The first image the account's post carries: its own media when it has chosen them, else the post's.
  function firstImage(target) {
    const account = target.dataset.account;
    const own = form.querySelector('input[name="t-' + CSS.escape(account) + '-media-own"]');
    const ids = own && own.checked
      ? Array.from(form.querySelectorAll('input[name="t-' + CSS.escape(account) + '-media"]:checked'))
      : Array.from(form.querySelectorAll("#media-list input[name=media_ids]"));
    for (const input of ids) {
      const image = form.querySelector('#media-list .media-item[data-media="' + CSS.escape(input.value) + '"] img');
      if (image) return image;
    }
    return null;
  }

  function shape(image, feed) {
    const natural = image.naturalWidth && image.naturalHeight ? image.naturalWidth / image.naturalHeight : 1;
    if (!feed.aspect) return natural;
    return Math.min(feed.aspect[1], Math.max(feed.aspect[0], natural));
  }

  function ratioName(value) {
    const known = [[9 / 16, "9:16"], [2 / 3, "2:3"], [3 / 4, "3:4"], [4 / 5, "4:5"], [1, "1:1"], [16 / 9, "16:9"], [1.91, "1.91:1"]];
    const hit = known.find(function (pair) {
      return Math.abs(pair[0] - value) < 0.01;
    });
    return hit ? hit[1] : value.toFixed(2) + ":1";
  }

  function drawMedia(card, image, feed) {
    const frame = element("figure", "preview-media");
    const shown = element("img");
    shown.src = image.src;
    shown.alt = "";
    frame.appendChild(shown);
    const caption = element("figcaption", "preview-crop");
    frame.appendChild(caption);
    function fit() {
      const ratio = shape(image, feed);
      frame.style.aspectRatio = String(ratio); // CSSOM, which the page's CSP allows
      frame.dataset.aspect = ratioName(ratio);
      const natural = image.naturalWidth / image.naturalHeight;
      const cropped = feed.aspect && Math.abs(natural - ratio) > 0.01;
      caption.textContent = cropped ? "Cropped to " + ratioName(ratio) + " in the feed" : "Shown whole (" + ratioName(ratio) + ")";
    }
    if (image.complete && image.naturalWidth) fit();
    else image.addEventListener("load", fit, { once: true });
    card.appendChild(frame);
  }

  function drawText(card, preview, text, feed, entry, names) {
    const body = element("p", "preview-text");
    const kept = preview ? preview.kept : text;
    const over = preview ? preview.over : "";
    const characters = Array.from(kept);
    if (feed.fold && characters.length > feed.fold) {
      body.appendChild(document.createTextNode(characters.slice(0, feed.fold).join("").trimEnd()));
      body.appendChild(element("span", "preview-more", feed.more));
    } else {
      body.appendChild(document.createTextNode(kept));
      if (over) body.appendChild(element("mark", "preview-over", over));
    }
    card.appendChild(body);
    if (over) {
      const beyond = entry && entry.limit ? entry.length - entry.limit : null;
      const cut = names.network + " stops at its limit of " + entry.limit + (beyond ? "; " + beyond + " over, marked, is not posted." : ".");
      card.appendChild(element("p", "preview-cut", cut));
    }
  }

  // A link's card: its domain and path at once, its page's title and description once the
  // server has read them (each URL asked once per page; the server caches and rate-limits).
  const linkCards = new Map();

  function fillLink(box, card) {
    if (!card || !box.isConnected) return;
    if (card.title) box.querySelector(".preview-link-title").textContent = card.title;
    if (card.description) box.querySelector(".preview-link-description").textContent = card.description;
  }

  function askCard(url) {
    if (!linkCards.has(url)) {
      const address = section.dataset.linkCardUrl + "&url=" + encodeURIComponent(url);
      linkCards.set(url, fetch(address, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .then(function (body) {
          return body.data;
        })
        .catch(function () {
          linkCards.delete(url); // asked again at the next draw
          return null;
        }));
    }
    return linkCards.get(url);
  }

  function drawLink(card, link) {
    const box = element("div", "preview-link");
    box.appendChild(element("span", "preview-link-domain", link.domain));
    box.appendChild(element("span", "preview-link-title", link.path || link.domain));
    box.appendChild(element("span", "preview-link-description"));
    card.appendChild(box);
    askCard(link.url).then(function (found) {
      fillLink(box, found);
    });
  }

  function card(target, entry, preview) {
    const names = who(target);
    const platform = target.dataset.platform;
    const feed = feeds[platform] || { fold: null, more: "", aspect: null, link_card: false };
    const item = element("li", "preview-card");
    item.dataset.account = target.dataset.account;
    item.dataset.platform = platform;
    const head = element("p", "preview-head");
    head.appendChild(element("strong", "", names.name || names.handle));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(element("span", "muted", names.handle + " · " + names.network));
    item.appendChild(head);
    drawText(item, preview, ownText(target), feed, entry, names);
    const image = firstImage(target);
    if (image) drawMedia(item, image, feed);
    const link = preview && preview.link;
    if (link && feed.link_card && !image) drawLink(item, link);
    return item;
  }

  function draw() {
    const byAccount = new Map((last.targets || []).map(function (entry) {
      return [entry.account_id, entry];
    }));
    const previews = last.previews || {};
    const cards = chosenTargets().map(function (target) {
      const account = target.dataset.account;
      return card(target, byAccount.get(account), previews[account]);
    });
    list.replaceChildren.apply(list, cards);
    empty.hidden = cards.length > 0;
  }

  form.addEventListener("compose:checked", function (event) {
    last = event.detail;
    draw();
  });
  form.addEventListener("change", function (event) {
    if (event.target.classList.contains("pick")) draw(); // the card comes and goes at once; its cut follows the check
  });
  draw();
})();
