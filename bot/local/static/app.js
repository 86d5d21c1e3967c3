// The local table's page: renders what the fake Discord holds and acts through its injectors.
// Generic on purpose: commands come from the synced tree, messages are drawn from their JSON.
"use strict";

const $ = (id) => document.getElementById(id);
const view = {
  member: null, channel: null, state: null, names: {}, channelNames: {},
  version: -1, shown: -1, command: null, busy: false, again: false, ready: false,
};
const COLORS = ["#5865f2", "#eb459e", "#3ba55c", "#faa61a", "#ed4245", "#1abc9c", "#9b59b6", "#e67e22"];
const STRING = 3, INTEGER = 4, BOOLEAN = 5, USER = 6, CHANNEL = 7, ROLE = 8, MENTIONABLE = 9, NUMBER = 10;

window.__clicks = [];
document.addEventListener("click", () => window.__clicks.push(performance.now()), true);

// -- talking to the table ------------------------------------------------------------------------

async function api(path, body) {
  const response = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok && !data.error) data.error = `${response.status} ${response.statusText}`;
  return data;
}

window.__acts = [];  // how long each action took until the bot had answered it (read by the benchmark)

async function act(action, extra) {
  const start = performance.now();
  const data = await api("/api/act", { action, member: view.member, channel: view.channel, locale: readerLocale(), ...extra });
  window.__acts.push({ action, ms: performance.now() - start });
  if (data.error) toast(data.error);
  if (data.modal) openModal(data.modal);
  if (data.activity) openActivity(data.activity);
  refresh();
  return data;
}

// -- the Activity: the board page in a panel, with Discord's side of the Embedded App SDK -------------------
//
// Discord's client opens an Activity in a frame and answers the SDK over postMessage: [opcode, payload] with
// opcodes HANDSHAKE 0, FRAME 1, CLOSE 2. The SDK sends HANDSHAKE {v, client_id, frame_id, ...}; the client
// answers READY (a DISPATCH frame), then each command frame {cmd, args, nonce} with a frame of the same cmd and
// nonce holding its data, or evt "ERROR" with {code, message}. The table does the same for the member the page
// acts as; messages are taken only from the panel's own frame and this origin, and sent only to them.

const HANDSHAKE = 0, FRAME = 1, CLOSE = 2;
const RPC_UNKNOWN_COMMAND = 4002, RPC_OAUTH2_ERROR = 5000;
const activity = { frame: null, launch: null, member: null, ready: false };

function openActivity(launch) {
  if (!launch.url) { closeActivity(); toast("The board page is not running at this table."); return; }
  openPanel(launch.url, launch.name, launch);
}

// The panel's frame at ``url``; ``launch`` (an Activity's) is what the table answers the SDK for, null for a link.
function openPanel(url, name, launch) {
  closeActivity();
  const panel = $("activity");
  const frame = document.createElement("iframe");
  frame.id = "activity-frame";
  frame.title = name;
  frame.setAttribute("allow", "clipboard-write");
  frame.src = url;
  $("activity-title").textContent = name;
  panel.querySelector(".activity-body").appendChild(frame);
  panel.hidden = false;
  Object.assign(activity, { frame, launch, member: view.member, ready: false });
}

// A link to this table's own board page (the personal link the bot answers where the launch is refused) opens in
// the panel, with no Discord side: the page takes its session from the link.
function isBoardLink(url) {
  try { const target = new URL(url); return target.origin === location.origin && target.pathname.startsWith("/board/"); }
  catch (e) { return false; }
}

function openLink(event) {
  const link = event.currentTarget;
  if (!isBoardLink(link.href)) return;
  event.preventDefault();
  openPanel(link.href, view.state.bot.name, null);
}

function closeActivity() {
  if (activity.frame) activity.frame.remove();
  Object.assign(activity, { frame: null, launch: null, member: null, ready: false });
  $("activity").hidden = true;
}

function toFrame(message) {
  if (activity.frame && activity.frame.contentWindow) activity.frame.contentWindow.postMessage(message, location.origin);
}

function answer(cmd, nonce, data) { toFrame([FRAME, { cmd, evt: null, nonce, data }]); }
function refuse(cmd, nonce, code, message) { toFrame([FRAME, { cmd, evt: "ERROR", nonce, data: { code, message } }]); }

async function onFrameMessage(event) {
  if (!activity.frame || !activity.launch || event.source !== activity.frame.contentWindow) return;
  if (event.origin !== location.origin) return;
  if (!Array.isArray(event.data) || event.data.length !== 2) return;
  const [opcode, payload] = event.data;
  if (opcode === CLOSE) { closeActivity(); return; }
  if (opcode === HANDSHAKE) {
    const query = activity.launch.query;
    if (!payload || payload.client_id !== activity.launch.client_id || payload.frame_id !== query.frame_id) {
      toFrame([CLOSE, { code: 4000, message: "Invalid client ID or frame" }]);
      return;
    }
    activity.ready = true;
    const me = (view.state.members.find((m) => m.id === activity.member) || {});
    toFrame([FRAME, {
      cmd: "DISPATCH", evt: "READY", nonce: null,
      data: {
        v: 1,
        config: { cdn_host: location.host, api_endpoint: `//${location.host}/api`, environment: "production" },
        user: { id: activity.member, username: me.name || "", discriminator: "0" },
      },
    }]);
    return;
  }
  if (opcode !== FRAME || !payload || typeof payload.cmd !== "string") return;
  const { cmd, args, nonce } = payload;
  if (!activity.ready) { refuse(cmd, nonce, RPC_UNKNOWN_COMMAND, "not connected: send the handshake first"); return; }
  if (cmd === "AUTHORIZE") {
    const data = await api("/api/activity/authorize", {
      member: activity.member, client_id: args && args.client_id, scopes: (args && args.scope) || [],
    });
    if (data.error) refuse(cmd, nonce, RPC_OAUTH2_ERROR, data.error); else answer(cmd, nonce, { code: data.code });
  } else if (cmd === "AUTHENTICATE") {
    const data = await api("/api/activity/authenticate", { member: activity.member, access_token: args && args.access_token });
    if (data.error) refuse(cmd, nonce, RPC_OAUTH2_ERROR, data.error); else answer(cmd, nonce, data);
  } else {
    refuse(cmd, nonce, RPC_UNKNOWN_COMMAND, `the local table does not play Discord's side of ${cmd}`);
  }
}

window.addEventListener("message", onFrameMessage);

function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

function connect() {
  const socket = new WebSocket(`ws://${location.host}/api/events`);
  socket.onmessage = (event) => {
    const data = JSON.parse(event.data);
    if (data.version !== view.version || data.ready !== view.ready) refresh();
  };
  socket.onclose = () => { $("status").textContent = "disconnected: is the table still running?"; setTimeout(connect, 1000); };
}

async function refresh() {
  if (view.busy) { view.again = true; return; }
  view.busy = true;
  try {
    do {
      view.again = false;
      const member = view.member ? `?member=${view.member}` : "";
      const state = await api(`/api/state${member}`);
      if (state.error) break;
      view.state = state;
      view.ready = state.ready;
      if (!view.member) view.member = state.members[0] && state.members[0].id;
      if (!view.channel || !state.channels.some((c) => c.id === view.channel)) view.channel = state.general;
      const listed = await api(`/api/messages?member=${view.member}&channel=${view.channel}`);
      if (listed.error) break;
      view.names = listed.names;
      view.channelNames = listed.channel_names;
      view.version = Math.max(state.version, listed.version);
      renderSide();
      renderMessages(listed.messages);
      $("status").textContent = state.ready ? `acting as ${nameOf(view.member)}` : "the bot is starting…";
      if (state.ready && !document.body.dataset.ready) {
        document.body.dataset.ready = "1";
        window.__readyAt = performance.now();
      }
    } while (view.again);
  } finally {
    view.busy = false;
  }
}

function nameOf(id) { return view.names[id] || (view.state && (view.state.members.find((m) => m.id === id) || {}).name) || "unknown"; }

// -- the side bar --------------------------------------------------------------------------------

function avatar(name) {
  const span = document.createElement("span");
  span.className = "avatar";
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  span.style.background = COLORS[hash % COLORS.length];
  span.textContent = (name[0] || "?").toUpperCase();
  return span;
}

function renderSide() {
  const state = view.state;
  const channels = $("channels");
  channels.textContent = "";
  const roots = state.channels.filter((c) => ![10, 11, 12].includes(c.type));
  for (const root of roots) {
    channels.append(channelItem(root, `# ${root.name}`));
    for (const thread of state.channels.filter((c) => c.parent_id === root.id && [10, 11, 12].includes(c.type))) {
      channels.append(channelItem(thread, `↳ ${thread.name}`, true));
    }
  }
  const members = $("members");
  members.textContent = "";
  for (const member of state.members) {
    const li = document.createElement("li");
    li.dataset.member = member.name;
    li.className = member.id === view.member ? "active" : "";
    li.append(avatar(member.name), member.name);
    if (member.manager) li.append(tag("span", "manager-tag", "manager"));
    li.onclick = () => { view.member = member.id; view.version = -1; refresh(); };
    members.append(li);
  }
  renderControls();
  const current = state.channels.find((c) => c.id === view.channel);
  const title = current ? ([10, 11, 12].includes(current.type) ? `↳ ${current.name}` : `# ${current.name}`) : "";
  $("channel-title").textContent = title;
  $("composer").placeholder = current ? `Message ${[10, 11, 12].includes(current.type) ? "" : "#"}${current.name}, or / for commands` : "";
}

function fillLocales(select, chosen) {
  if (select.options.length !== view.state.locales.length) {
    select.textContent = "";
    const names = new Intl.DisplayNames(["en"], { type: "language" });
    for (const locale of view.state.locales) select.append(new Option(`${names.of(locale)} · ${locale}`, locale));
  }
  if (document.activeElement !== select) select.value = chosen;
}

function renderControls() {
  // The acting member's language and Manage Server, and the server's language: what Discord's settings hold.
  const me = view.state.members.find((m) => m.id === view.member);
  if (!me) return;
  $("acting-name").textContent = me.name;
  fillLocales($("member-locale"), me.locale);
  $("member-manager").checked = me.manager;
  fillLocales($("server-locale"), view.state.locale);
}

async function changeMember(change) {
  const data = await api("/api/member", { member: view.member, ...change });
  if (data.error) toast(data.error);
  refresh();
}

async function changeServer(change) {
  const data = await api("/api/server", change);
  if (data.error) toast(data.error);
  refresh();
}

function channelItem(channel, label, thread) {
  const li = document.createElement("li");
  li.dataset.channel = channel.id;
  li.dataset.channelName = channel.name;
  li.className = [thread ? "thread" : "", channel.id === view.channel ? "active" : "", channel.archived ? "archived" : ""].join(" ");
  li.textContent = label + (channel.locked ? " (locked)" : "");
  li.onclick = () => openChannel(channel.id);
  return li;
}

function openChannel(id) {
  view.channel = id;
  view.shown = -1;
  $("messages").textContent = "";
  refresh();
}

// -- messages ------------------------------------------------------------------------------------

function renderMessages(messages) {
  const box = $("messages");
  const nearBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 120;
  const existing = new Map([...box.children].map((node) => [node.dataset.id, node]));
  const wanted = [];
  for (const message of messages) {
    const key = JSON.stringify(message);
    let node = existing.get(message.id);
    if (!node || node.dataset.key !== key) {
      const fresh = renderMessage(message);
      fresh.dataset.key = key;
      if (node) node.replaceWith(fresh);
      node = fresh;
    }
    wanted.push(node);
  }
  const keep = new Set(wanted);
  for (const node of [...box.children]) if (!keep.has(node)) node.remove();
  wanted.forEach((node, i) => { if (box.children[i] !== node) box.insertBefore(node, box.children[i] || null); });
  if (!messages.length) box.append(emptyHint());
  if (nearBottom || view.shown !== view.channel) box.scrollTop = box.scrollHeight;
  view.shown = view.channel;
}

function emptyHint() {
  // An empty channel says where to start: the first commands a newcomer needs, as the command list orders them.
  const hint = tag("div", "empty-hint");
  hint.id = "empty-hint";
  const first = commands().slice(0, 2).map((c) => `<code>/${escapeHtml(pathText(c))}</code>`);
  hint.innerHTML = first.length
    ? `Nothing here yet. Start with ${first.join(" or ")}: type <code>/</code> in the box below to see every command.`
    : "Nothing here yet. Type a message, or <code>/</code> for the bot's commands once it is ready.";
  return hint;
}

function keepBottom() {
  const box = $("messages");
  if (box.scrollHeight - box.scrollTop - box.clientHeight < 900) box.scrollTop = box.scrollHeight;
}

function renderMessage(message) {
  const node = document.createElement("div");
  node.className = "msg" + (message.ephemeral ? " ephemeral" : "");
  node.dataset.id = message.id;
  node.dataset.author = message.author.name;
  node.append(avatar(message.author.name));
  const body = document.createElement("div");
  body.className = "msg-body";
  if (message.command && message.invoker) {
    const invoked = document.createElement("div");
    invoked.className = "invoked";
    invoked.textContent = `${message.invoker} used /${message.command}`;
    body.append(invoked);
  }
  const head = document.createElement("div");
  head.className = "msg-head";
  const author = document.createElement("span");
  author.className = "msg-author";
  author.textContent = message.author.name;
  head.append(author);
  if (message.author.bot) head.append(tag("span", "bot-tag", "APP"));
  if (message.timestamp) head.append(tag("span", "msg-time", new Date(message.timestamp).toLocaleTimeString()));
  body.append(head);
  if (message.loading) body.append(tag("div", "loading", `${message.author.name} is thinking…`));
  if (message.content) body.append(markdown(message.content));
  if (message.edited) body.append(tag("span", "edited", "(edited)"));
  for (const embed of message.embeds) body.append(renderEmbed(embed));
  const shownInEmbeds = new Set(JSON.stringify([message.embeds, message.components]).match(/\/attachments\/[^"]+/g) || []);
  for (const attachment of message.attachments) {
    if (shownInEmbeds.has(attachment.url)) continue;
    body.append(renderAttachment(attachment));
  }
  renderComponents(message.components, body, message);
  if (message.thread_id) {
    const link = tag("div", "mention", `↳ ${view.channelNames[message.thread_id] || "thread"} (open the thread)`);
    link.onclick = () => openChannel(message.thread_id);
    body.append(link);
  }
  if (message.ephemeral) body.append(tag("div", "ephemeral-note", "Only you can see this"));
  node.append(body);
  return node;
}

function tag(kind, className, text) {
  const node = document.createElement(kind);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function image(url, className, alt) {
  const img = document.createElement("img");
  img.className = className;
  img.alt = alt || "";
  img.addEventListener("load", () => { img.dataset.loadedAt = String(performance.now()); keepBottom(); });
  img.src = url;
  return img;
}

function renderAttachment(attachment) {
  const box = tag("div", "attachment");
  if (attachment.content_type.startsWith("image/")) {
    box.append(image(attachment.url, "", attachment.description || attachment.filename));
  } else {
    const link = tag("a", "file", `${attachment.filename} (${Math.ceil(attachment.size / 1024)} KB)`);
    link.href = attachment.url;
    link.download = attachment.filename;
    box.append(link);
  }
  return box;
}

function hex(color) { return `#${Number(color || 0).toString(16).padStart(6, "0")}`; }

function renderEmbed(embed) {
  const box = tag("div", "embed");
  if (embed.color !== undefined && embed.color !== null) box.style.borderLeftColor = hex(embed.color);
  if (embed.thumbnail && embed.thumbnail.url) box.append(image(embed.thumbnail.url, "embed-thumb"));
  if (embed.author && embed.author.name) box.append(tag("div", "embed-author", embed.author.name));
  if (embed.title) box.append(tag("div", "embed-title", embed.title));
  if (embed.description) box.append(markdown(embed.description));
  if (embed.fields && embed.fields.length) {
    const grid = tag("div", "embed-fields");
    for (const field of embed.fields) {
      const item = tag("div", "embed-field" + (field.inline ? " inline" : ""));
      item.append(tag("div", "embed-field-name", field.name), markdown(field.value));
      grid.append(item);
    }
    box.append(grid);
  }
  if (embed.image && embed.image.url) box.append(image(embed.image.url, "embed-image", embed.title || "image"));
  const footer = [embed.footer && embed.footer.text, embed.timestamp && new Date(embed.timestamp).toLocaleString()].filter(Boolean);
  if (footer.length) box.append(tag("div", "embed-footer", footer.join(" • ")));
  return box;
}

const BUTTON_STYLES = { 1: "b-primary", 2: "b-secondary", 3: "b-success", 4: "b-danger", 5: "b-link", 6: "b-primary" };

function renderComponents(components, parent, message) {
  for (const component of components || []) {
    const kind = component.type;
    if (kind === 1) {
      const row = tag("div", "row");
      renderComponents(component.components, row, message);
      parent.append(row);
    } else if (kind === 2) {
      parent.append(renderButton(component, message));
    } else if ([3, 5, 6, 7, 8].includes(kind)) {
      parent.append(renderSelect(component, message));
    } else if (kind === 9) {
      const section = tag("div", "section");
      const text = tag("div");
      renderComponents(component.components, text, message);
      section.append(text);
      if (component.accessory) renderComponents([component.accessory], section, message);
      parent.append(section);
    } else if (kind === 10) {
      parent.append(markdown(component.content || ""));
    } else if (kind === 11) {
      parent.append(image(component.media.url, "embed-thumb", component.description || ""));
    } else if (kind === 12) {
      const gallery = tag("div", "gallery");
      for (const item of component.items || []) gallery.append(image(item.media.url, "", item.description || ""));
      parent.append(gallery);
    } else if (kind === 13) {
      parent.append(tag("div", "file", `${(component.file && component.file.url) || "file"}`));
    } else if (kind === 14) {
      parent.append(tag("div", component.divider === false ? "" : "separator"));
    } else if (kind === 17) {
      const box = tag("div", "container");
      if (component.accent_color !== undefined && component.accent_color !== null) box.style.borderLeftColor = hex(component.accent_color);
      renderComponents(component.components, box, message);
      parent.append(box);
    }
  }
}

function renderButton(component, message) {
  const label = `${(component.emoji && component.emoji.name) || ""}${component.emoji && component.label ? " " : ""}${component.label || ""}`;
  if (component.style === 5) {
    const link = tag("a", "component b-link", `${label} ↗`);
    link.href = component.url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    return link;
  }
  const button = tag("button", `component ${BUTTON_STYLES[component.style] || "b-secondary"}`, label);
  button.type = "button";
  button.disabled = Boolean(component.disabled);
  button.dataset.customId = component.custom_id || "";
  button.onclick = async () => {
    button.disabled = true;
    try { await act("click", { message: message.id, custom_id: component.custom_id }); }
    finally { button.disabled = Boolean(component.disabled); }
  };
  return button;
}

function selectOptions(component) {
  if (component.type === 3) return component.options || [];
  if (component.type === 5) return view.state.members.map((m) => ({ label: m.name, value: m.id }));
  if (component.type === 7) return view.state.members.map((m) => ({ label: `@${m.name}`, value: m.id }));
  if (component.type === 8) return view.state.channels.map((c) => ({ label: `#${c.name}`, value: c.id }));
  return [];
}

function renderSelect(component, message) {
  const select = tag("select", "component");
  select.dataset.customId = component.custom_id || "";
  select.disabled = Boolean(component.disabled);
  const many = (component.max_values || 1) > 1;
  select.multiple = many;
  if (!many) {
    const blank = tag("option", "", component.placeholder || "Make a selection");
    blank.value = "";
    blank.disabled = true;
    blank.selected = true;
    select.append(blank);
  }
  for (const option of selectOptions(component)) {
    const item = tag("option", "", `${option.emoji && option.emoji.name ? option.emoji.name + " " : ""}${option.label}${option.description ? " — " + option.description : ""}`);
    item.value = option.value;
    select.append(item);
  }
  const send = () => {
    const values = [...select.selectedOptions].map((o) => o.value).filter((v) => v !== "");
    if (values.length) act("select", { message: message.id, custom_id: component.custom_id, values });
  };
  if (!many) {
    select.onchange = send;
    return select;
  }
  const wrap = tag("div", "row");
  const done = tag("button", "component b-primary", "Choose");
  done.type = "button";
  done.onclick = send;
  wrap.append(select, done);
  return wrap;
}

// -- Discord's markdown, the parts the bot can use ------------------------------------------------

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function markdown(text) {
  const box = tag("div", "content");
  const codes = [];
  let html = escapeHtml(String(text));
  html = html.replace(/```(?:[a-z]*\n)?([\s\S]*?)```/g, (_, code) => { codes.push(`<pre>${code}</pre>`); return `\u0000${codes.length - 1}\u0000`; });
  html = html.replace(/`([^`\n]+)`/g, (_, code) => { codes.push(`<code>${code}</code>`); return `\u0000${codes.length - 1}\u0000`; });
  html = html.replace(/&lt;@!?(\d+)&gt;/g, (_, id) => `<span class="mention">@${escapeHtml(view.names[id] || "unknown")}</span>`);
  html = html.replace(/&lt;@&amp;(\d+)&gt;/g, () => `<span class="mention">@role</span>`);
  html = html.replace(/&lt;#(\d+)&gt;/g, (_, id) => `<span class="mention" data-open="${id}">#${escapeHtml(view.channelNames[id] || "channel")}</span>`);
  html = html.replace(/&lt;\/([\w -]+):\d+&gt;/g, (_, name) => `<span class="mention">/${name}</span>`);
  html = html.replace(/&lt;a?:(\w+):\d+&gt;/g, (_, name) => `:${name}:`);
  html = html.replace(/&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;/g, (_, ts, style) => `<span class="mention">${timestamp(Number(ts), style)}</span>`);
  // Links are set aside like code, so no emphasis rule reads into an address (a session's "_" and "-").
  const anchor = (url, label) => { codes.push(`<a href="${url}" target="_blank" rel="noopener noreferrer">${label}</a>`); return `\u0000${codes.length - 1}\u0000`; };
  html = html.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label, url) => anchor(url, label));
  // A bare address is a link too, as Discord's client shows it.
  html = html.replace(/(^|[\s(])(https?:\/\/[^\s<]+[^\s<.,:;!?)])/g, (_, before, url) => before + anchor(url, url));
  html = html.replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>");
  html = html.replace(/__([^_]+)__/g, "<u>$1</u>");
  html = html.replace(/(^|[^\w*])\*([^*\n]+)\*(?!\w)/g, "$1<i>$2</i>");
  html = html.replace(/(^|[^\w])_([^_\n]+)_(?!\w)/g, "$1<i>$2</i>");
  html = html.replace(/~~([^~]+)~~/g, "<s>$1</s>");
  html = html.replace(/\|\|([^|]+)\|\|/g, "$1");
  html = html.replace(/^(#{1,3}) (.*)$/gm, (_, hashes, title) => `<h${hashes.length}>${title}</h${hashes.length}>`);
  html = html.replace(/^-# (.*)$/gm, '<small>$1</small>');
  html = html.replace(/^&gt; (.*)$/gm, "<blockquote>$1</blockquote>");
  html = html.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
  box.innerHTML = html;
  for (const link of box.querySelectorAll("[data-open]")) link.onclick = () => openChannel(link.dataset.open);
  for (const link of box.querySelectorAll("a[href]")) link.onclick = openLink;
  return box;
}

// Discord's timestamp markup as Discord's client shows it: in the reader's language, in the largest
// whole unit (seconds, minutes, hours, days, months, years), never rounded to "now".
const RELATIVE_UNITS = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];

// The browser is the member's Discord client: its language is theirs, for the bot (sent with each
// action, as Discord sends an interaction's locale) and for the timestamps on the page.
function readerLocale() {
  return navigator.language || "en-US";
}

function relativeTime(seconds, now, locale) {
  const delta = seconds - now / 1000;
  const size = Math.abs(delta);
  const [unit, length] = RELATIVE_UNITS.find(([, length]) => size >= length) || ["second", 1];
  const amount = Math.round(delta / length);
  return new Intl.RelativeTimeFormat(locale, { numeric: "always" }).format(amount, unit);
}

function timestamp(seconds, style, locale = readerLocale()) {
  const date = new Date(seconds * 1000);
  if (style === "R") return relativeTime(seconds, Date.now(), locale);
  if (style === "t" || style === "T") return date.toLocaleTimeString(locale);
  if (style === "d" || style === "D") return date.toLocaleDateString(locale);
  return date.toLocaleString(locale);
}

// -- the composer: messages and slash commands ---------------------------------------------------

function commands() { return (view.state && view.state.commands) || []; }
function pathText(command) { return command.path.join(" "); }

function matchCommand(text) {
  // The longest command path that the typed text starts with.
  const typed = text.replace(/^\//, "");
  let best = null;
  for (const command of commands()) {
    const path = pathText(command);
    if ((typed === path || typed.startsWith(path + " ")) && (!best || path.length > pathText(best).length)) best = command;
  }
  return best;
}

function onComposerInput() {
  const text = $("composer").value;
  const list = $("suggestions");
  if (!text.startsWith("/")) { list.hidden = true; setCommand(null); return; }
  const current = matchCommand(text);
  if (current !== view.command) setCommand(current);
  if (current) { list.hidden = true; return; }
  const typed = text.slice(1).toLowerCase();
  const found = commands().filter((c) => pathText(c).startsWith(typed) || pathText(c).includes(typed)).slice(0, 25);
  list.textContent = "";
  found.forEach((command, i) => {
    const li = document.createElement("li");
    li.className = i === 0 ? "sel" : "";
    li.dataset.command = pathText(command);
    li.append(tag("span", "", `/${pathText(command)}`), tag("span", "cmd-desc", command.description));
    li.onmousedown = (event) => { event.preventDefault(); pickCommand(command); };
    list.append(li);
  });
  list.hidden = found.length === 0;
}

function pickCommand(command) {
  $("composer").value = `/${pathText(command)} `;
  $("suggestions").hidden = true;
  setCommand(command);
  const first = $("options").querySelector("input, select");
  if (first) first.focus(); else $("composer").focus();
}

function setCommand(command) {
  view.command = command;
  const box = $("options");
  box.textContent = "";
  box.hidden = !command || !command.options.length;
  if (!command) return;
  for (const option of command.options) box.append(optionField(command, option));
}

function optionField(command, option) {
  const wrap = tag("div", "opt");
  const label = tag("label", "", option.name);
  if (option.required) label.append(tag("span", "req", " *"));
  label.title = option.description || "";
  wrap.append(label);
  let field;
  const choices = option.choices || (option.type === BOOLEAN ? [{ name: "True", value: "true" }, { name: "False", value: "false" }] : null);
  const everyone = [...view.state.members, view.state.bot];
  const people = [USER, MENTIONABLE].includes(option.type) ? everyone.map((m) => ({ name: m.name, value: m.id })) : null;
  const places = option.type === CHANNEL ? view.state.channels.map((c) => ({ name: `#${c.name}`, value: c.id })) : null;
  const fixed = choices || people || places;
  if (fixed && !option.autocomplete) {
    field = tag("select");
    const blank = tag("option", "", option.required ? "choose…" : "(none)");
    blank.value = "";
    field.append(blank);
    for (const choice of fixed) {
      const item = tag("option", "", choice.name);
      item.value = String(choice.value);
      field.append(item);
    }
  } else {
    field = tag("input");
    field.type = "text";
    field.placeholder = option.description || "";
    if ([INTEGER, NUMBER].includes(option.type)) field.inputMode = "decimal";
    if (option.autocomplete) attachAutocomplete(command, option, field, wrap);
  }
  field.dataset.option = option.name;
  field.title = option.description || "";
  field.addEventListener("keydown", (event) => {
    // Enter picks the highlighted suggestion of an open list (the list's own handler); otherwise it sends.
    if (event.key === "Enter" && !event.defaultPrevented) { event.preventDefault(); runCommand(); }
  });
  wrap.append(field);
  return wrap;
}

function optionValues() {
  const values = {};
  for (const field of $("options").querySelectorAll("[data-option]")) {
    const value = field.dataset.value !== undefined && field.dataset.shown === field.value ? field.dataset.value : field.value;
    if (value !== "") values[field.dataset.option] = value;
  }
  return values;
}

function attachAutocomplete(command, option, field, wrap) {
  const list = tag("ul", "ac-list");
  list.hidden = true;
  wrap.append(list);
  let timer = null;
  let asked = 0;
  const ask = async () => {
    const mine = ++asked;
    const data = await api("/api/act", {
      action: "autocomplete", member: view.member, channel: view.channel,
      path: command.path, options: { ...optionValues(), [option.name]: field.value }, focused: option.name,
    });
    if (mine !== asked || document.activeElement !== field) return;
    list.textContent = "";
    for (const choice of data.choices || []) {
      const li = tag("li", "", choice.name);
      li.dataset.value = String(choice.value);
      li.onmousedown = (event) => { event.preventDefault(); choose(choice); };
      list.append(li);
    }
    list.hidden = !list.children.length;
  };
  const choose = (choice) => {
    field.value = String(choice.name);
    field.dataset.value = String(choice.value);
    field.dataset.shown = field.value;
    list.hidden = true;
    list.textContent = "";  // a closed list keeps no highlighted suggestion for the next Enter to stumble on
  };
  field.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
  field.addEventListener("focus", () => { clearTimeout(timer); timer = setTimeout(ask, 0); });
  field.addEventListener("blur", () => { setTimeout(() => { list.hidden = true; }, 150); });
  field.addEventListener("keydown", (event) => {
    const items = [...list.children];
    if (list.hidden || !items.length) return;
    let at = items.findIndex((li) => li.classList.contains("sel"));
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      at = event.key === "ArrowDown" ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1);
      items.forEach((li, i) => li.classList.toggle("sel", i === at));
    } else if ((event.key === "Enter" || event.key === "Tab") && at >= 0) {
      event.preventDefault();
      choose({ name: items[at].textContent, value: items[at].dataset.value });
    } else if (event.key === "Escape") {
      list.hidden = true;
    }
  });
}

function inlineOptions(command, text) {
  // "/veletas move move:d4-g7/g2 where:here" typed in one go: values run to the next "name:".
  const rest = text.replace(/^\//, "").slice(pathText(command).length);
  const names = command.options.map((o) => o.name).sort((a, b) => b.length - a.length);
  if (!names.length) return {};
  const pattern = new RegExp(`(?:^|\\s)(${names.map((n) => n.replace(/[-]/g, "\\-")).join("|")}):`, "g");
  const marks = [...rest.matchAll(pattern)];
  const values = {};
  marks.forEach((mark, i) => {
    const end = i + 1 < marks.length ? marks[i + 1].index : rest.length;
    const option = command.options.find((o) => o.name === mark[1]);
    let value = rest.slice(mark.index + mark[0].length, end).trim();
    if (option.choices) {
      const hit = option.choices.find((c) => c.name.toLowerCase() === value.toLowerCase() || String(c.value).toLowerCase() === value.toLowerCase());
      if (hit) value = String(hit.value);
    }
    if ([USER, MENTIONABLE].includes(option.type)) {
      const who = [...view.state.members, view.state.bot].find((m) => m.name === value.replace(/^@/, "").toLowerCase());
      if (who) value = who.id;
    }
    values[mark[1]] = value;
  });
  return values;
}

async function runCommand() {
  const text = $("composer").value.trim();
  const command = view.command || matchCommand(text);
  if (!command) { toast("Choose a command from the list"); return; }
  const values = { ...optionValues(), ...inlineOptions(command, text) };
  const data = await act("slash", { path: command.path, options: values });
  if (!data.error) { $("composer").value = ""; setCommand(null); }
}

async function submitComposer(event) {
  event.preventDefault();
  const text = $("composer").value;
  if (text.startsWith("/")) {
    if (!view.command && !matchCommand(text)) {
      const first = $("suggestions").querySelector("li.sel") || $("suggestions").querySelector("li");
      const command = first && commands().find((c) => pathText(c) === first.dataset.command);
      if (command) { pickCommand(command); return; }
    }
    await runCommand();
    return;
  }
  if (!text.trim()) return;
  const data = await act("say", { content: text });
  if (!data.error) $("composer").value = "";
}

function composerKeys(event) {
  const list = $("suggestions");
  const items = [...list.children];
  if (list.hidden || !items.length) return;
  let at = items.findIndex((li) => li.classList.contains("sel"));
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    at = event.key === "ArrowDown" ? Math.min(items.length - 1, at + 1) : Math.max(0, at - 1);
    items.forEach((li, i) => li.classList.toggle("sel", i === at));
  } else if (event.key === "Tab" && at >= 0) {
    event.preventDefault();
    pickCommand(commands().find((c) => pathText(c) === items[at].dataset.command));
  }
}

// -- modals --------------------------------------------------------------------------------------

function openModal(modal) {
  $("modal-title").textContent = modal.title;
  const fields = $("modal-fields");
  fields.textContent = "";
  for (const field of modal.fields) {
    const label = tag("label", "", field.label);
    if (field.required) label.append(tag("span", "req", " *"));
    const input = tag(field.style === 2 ? "textarea" : "input");
    input.dataset.field = field.custom_id;
    input.value = field.value || "";
    input.placeholder = field.placeholder || "";
    input.required = field.required;
    if (field.max_length) input.maxLength = field.max_length;
    if (field.min_length) input.minLength = field.min_length;
    label.htmlFor = input.id = `field-${field.custom_id}`;
    fields.append(label, input);
  }
  $("modal").dataset.modal = modal.id;
  $("modal-back").hidden = false;
  const first = fields.querySelector("input, textarea");
  if (first) first.focus();
}

async function submitModal(event) {
  event.preventDefault();
  const values = {};
  for (const input of $("modal-fields").querySelectorAll("[data-field]")) values[input.dataset.field] = input.value;
  $("modal-back").hidden = true;
  await act("submit", { modal: $("modal").dataset.modal, values });
}

// -- start ---------------------------------------------------------------------------------------

$("compose").addEventListener("submit", submitComposer);
$("composer").addEventListener("input", onComposerInput);
$("composer").addEventListener("keydown", composerKeys);
$("modal").addEventListener("submit", submitModal);
$("member-locale").addEventListener("change", (event) => changeMember({ locale: event.target.value }));
$("member-manager").addEventListener("change", (event) => changeMember({ manager: event.target.checked }));
$("server-locale").addEventListener("change", (event) => changeServer({ locale: event.target.value }));
$("modal-cancel").onclick = () => { $("modal-back").hidden = true; };
$("activity-close").onclick = closeActivity;
$("add-member").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("new-member").value.trim();
  if (!name) return;
  const data = await api("/api/members", { name });
  if (data.error) { toast(data.error); return; }
  $("new-member").value = "";
  view.member = data.id;
  refresh();
});
connect();
refresh();
