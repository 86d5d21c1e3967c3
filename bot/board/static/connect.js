// The board page's way in: a board session for the member looking at it.
//
// Inside Discord (the page is the bot's Activity: its address has Discord's frame_id), the Embedded App SDK
// does the handshake with Discord's client, asks Discord for an OAuth2 code (authorize), the bot exchanges it
// for an access token (api/token: the client secret stays with the bot), the SDK authenticates with it, and
// the bot answers a session for that member and the game launched from that channel (api/session: the bot
// asks Discord who the token belongs to, never the page). Outside Discord, a personal link carries its session
// in the fragment (#session=...), which never reaches a server's logs.
//
// Every address is relative to the page, so the same code runs behind Discord's proxy
// (https://<client id>.discordsays.com/..., whose Content-Security-Policy allows only that origin) and on the
// local table (/board/ of the table's own page), and through any reverse proxy in front of the bot.
import { DiscordSDK } from "./vendor/discord-embedded-app-sdk.js";

const SCOPES = ["identify"];

// Whether the page runs in Discord's frame (Discord, or the local table playing Discord's side).
export function inDiscord() {
  return new URLSearchParams(window.location.search).has("frame_id");
}

// The session a personal link carries in its fragment, or null.
export function linkedSession() {
  return new URLSearchParams(window.location.hash.slice(1)).get("session");
}

function apiUrl(path, base) {
  return new URL(`api/${path}`, base || document.baseURI);
}

async function ask(path, body, base) {
  const response = await fetch(apiUrl(path, base), body === undefined ? { cache: "no-store" } : {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    cache: "no-store",
  });
  let answer = {};
  try { answer = await response.json(); } catch (error) { answer = {}; }
  if (!response.ok) throw new Error(answer.error || `${path}: ${response.status} ${response.statusText}`);
  return answer;
}

// The session token (a string) for the member looking at the page; rejects with an Error saying why not.
// ``options.base``: the page address the api/ routes are relative to (by default the page's own).
export async function connect(options = {}) {
  if (!inDiscord()) {
    const session = linkedSession();
    if (session) return session;
    throw new Error("open the board from Discord's “Play on the board” button, or from your personal link");
  }
  const config = await ask("config", undefined, options.base);
  if (!config.activity) throw new Error("the board page is not set up as a Discord Activity on this bot");
  const sdk = new DiscordSDK(config.client_id, { disableConsoleLogOverride: true });
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: config.client_id,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: SCOPES,
  });
  const { access_token: accessToken } = await ask("token", { code }, options.base);
  await sdk.commands.authenticate({ access_token: accessToken });
  const answer = await ask("session", {
    access_token: accessToken,
    guild_id: sdk.guildId,
    channel_id: sdk.channelId,
    instance_id: sdk.instanceId,
  }, options.base);
  return answer.session;
}
