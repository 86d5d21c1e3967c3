// The board page: draws the game the server sends and turns clicks (or typed turns) into the turn text a slash
// command would carry. The rules are never applied here: the squares offered at each step are the server's.
// Every address is relative to the page (Discord serves an Activity from its own proxy origin).
// A puzzle link (#puzzle=<session>) opens the member's puzzle attempt instead of a game: the same board and clicks,
// its turns sent to the puzzle's routes, and what each turn did (the server's words) shown under the board.

const $ = (id) => document.getElementById(id);
const view = { token: null, words: {}, language: null, state: null, you: null, picks: [], received: 0, socket: null,
  retry: 0, busy: false, puzzle: false };  // busy: the version a turn was sent for, while it is on its way
window.__clicks = 0;
window.__board = view;

function t(key, data = {}) {
  const template = view.words[key] ?? key;
  return template.replace(/\{([a-z_]+)\}/g, (_, name) => String(data[name] ?? ''));
}

async function loadWords(language) {
  const answer = await fetch(`api/words?language=${encodeURIComponent(language || '')}`);
  const body = await answer.json();
  view.words = body.words;
  view.language = body.language;
  document.documentElement.lang = body.language;
  $('send').textContent = t('page.send');
  $('clear').textContent = t('page.clear');
  $('typed').placeholder = t('page.type_move');
  $('typed').setAttribute('aria-label', t('page.type_move'));
  document.title = t('page.title');
}

async function sessionToken() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('puzzle')) { view.puzzle = true; return hash.get('puzzle'); }
  if (hash.get('session')) return hash.get('session');
  if (new URLSearchParams(location.search).has('frame_id')) {
    const { connect } = await import('./connect.js');
    return await connect();
  }
  return null;
}

async function api(method, path, body) {
  // The page's language goes along: a refusal is worded in it when the bot does not know the member's own.
  const options = { method, headers: { Authorization: `Bearer ${view.token}`, 'X-Board-Language': view.language || '' } };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const answer = await fetch(`api/${path}`, options);
  const json = await answer.json().catch(() => ({ error: answer.statusText }));
  if (answer.status === 401) throw new Error(t(view.puzzle ? 'page.puzzle_session' : 'page.open_from_discord'));
  if (!answer.ok) throw Object.assign(new Error(json.error || answer.statusText), { key: json.key });
  return json;
}

// -- live ---------------------------------------------------------------------------------------------

function connect() {
  const url = new URL('api/live', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  const socket = new WebSocket(url);
  view.socket = socket;
  socket.onopen = () => socket.send(JSON.stringify({ token: view.token }));
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === 'state') show(message.state);
    else if (message.type === 'you') meet(message.you);
    else if (message.type === 'premove') premoveNews(message);
    else if (message.type === 'error') { view.fatal = true; $('status').textContent = t('page.open_from_discord'); }
  };
  socket.onclose = () => {
    if (view.socket !== socket || view.fatal) return;
    view.socket = null;
    $('status').textContent = t('page.reconnecting');
    view.retry = Math.min(view.retry ? view.retry * 2 : 250, 4000);
    setTimeout(connect, view.retry);
  };
}
window.__dropConnection = () => view.socket && view.socket.close();

async function meet(you) {
  view.you = you;
  view.retry = 0;
  if (you.language && you.language !== view.language) await loadWords(you.language);
  for (const [name, rgb] of Object.entries(you.theme || {})) {
    if (Array.isArray(rgb) && rgb.length >= 3) {
      document.documentElement.style.setProperty(`--${name.replace(/_/g, '-')}`, `rgb(${rgb.slice(0, 3).join(',')})`);
    }
  }
  if (view.state) render();
  renderPremove();
}

// -- drawing --------------------------------------------------------------------------------------------

function squareName(size, row, column) {
  return String.fromCharCode(97 + column) + String(size - row);
}

function myTurn() {
  const s = view.state;
  return Boolean(s && view.you && view.you.player && s.status === 'active' && s.turn === view.you.id);
}

function mayPremove() {
  const s = view.state;
  return Boolean(s && view.you && view.you.player && s.status === 'active' && s.live && s.turn !== view.you.id
    && s.phase === 'play');
}

function show(state) {
  const changed = !view.state || view.state.version !== state.version;
  view.state = state;
  view.received = performance.now();
  if (changed) { view.picks = []; $('notice').textContent = ''; }
  render();
  if (document.body.dataset.ready !== '1') {
    document.body.dataset.ready = '1';
    window.__readyAt = performance.now();
  }
  document.body.dataset.version = String(state.version);
  window.__shownWall = window.__shownWall || {};  // when each version was first on screen (ms since the epoch)
  if (!(state.version in window.__shownWall)) window.__shownWall[state.version] = Date.now();
}

function render() {
  const s = view.state;
  if (!s || !view.you) return;
  const board = s.board;
  const grid = $('board');
  grid.style.setProperty('--n', board.size);
  const offered = new Set(myTurn() ? options() : []);
  const picked = new Set(view.picks);
  const last = new Set(board.last || []);
  const swaps = new Set(board.swaps || []);
  const confined = new Set([...(board.confined?.black || []), ...(board.confined?.white || [])]);
  const cells = [];
  for (let row = 0; row < board.size; row++) {
    for (let column = 0; column < board.size; column++) {
      const name = squareName(board.size, row, column);
      const cell = document.createElement('button');
      cell.type = 'button';
      cell.className = 'sq' + ((row + column) % 2 ? ' dark' : '');
      cell.dataset.square = name;
      cell.setAttribute('aria-label', name);
      if (last.has(name)) cell.classList.add('last');
      if (swaps.has(name)) cell.classList.add('swap');
      if (offered.has(name)) cell.classList.add('legal');
      if (picked.has(name)) cell.classList.add('picked');
      if (confined.has(name)) cell.classList.add('confined');
      if (board.cells && board.cells[name]) {
        cell.append(piece(board.cells[name]));
        cell.dataset.piece = board.cells[name];
      }
      if (board.stones && board.stones[name]) {
        const stack = board.stones[name];
        if (stack.length > 1) cell.append(piece(stack[0], 'under'));
        cell.append(piece(stack[stack.length - 1]));
        cell.dataset.piece = stack.join('/');
      }
      if (column === 0 || row === board.size - 1) {
        const label = document.createElement('span');
        label.className = 'name';
        label.textContent = name;
        cell.append(label);
      }
      cell.addEventListener('click', () => clicked(name));
      cells.push(cell);
    }
  }
  grid.replaceChildren(...cells);
  renderPlayers();
  renderStatus();
  renderChoices();
  renderResult();
  renderPremove();
}

function piece(kind, extra = '') {
  const node = document.createElement('span');
  node.className = `piece ${kind} ${extra}`.trim();
  return node;
}

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return h ? `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}` : `${m}:${String(r).padStart(2, '0')}`;
}

function renderPlayers() {
  const s = view.state;
  const nodes = s.players.map((p) => {
    const box = document.createElement('div');
    box.className = 'player' + (s.status === 'active' && p.id === s.turn ? ' to-act' : '');
    box.dataset.seat = p.seat;
    if (p.colour) {
      const dot = document.createElement('span');
      dot.className = `dot ${p.colour}`;
      dot.title = t(`page.${p.colour}`);
      box.append(dot);
    }
    const name = document.createElement('span');
    name.className = 'who';
    name.textContent = p.name;  // text, never markup: a member's name is theirs to choose
    box.append(name);
    if (p.left !== null && p.left !== undefined) {
      const clock = document.createElement('span');
      clock.className = 'clock';
      clock.dataset.left = String(p.left);
      box.append(clock);
    }
    return box;
  });
  $('players').replaceChildren(...nodes);
  tick();
}

function tick() {
  const s = view.state;
  if (!s) return;
  const elapsed = (performance.now() - view.received) / 1000;
  document.querySelectorAll('.player').forEach((box) => {
    const clock = box.querySelector('.clock');
    if (!clock) return;
    const running = s.status === 'active' && s.clock.running === box.dataset.seat;
    clock.textContent = clockText(Number(clock.dataset.left) - (running ? elapsed : 0));
  });
}
setInterval(tick, 250);

function nameOf(id) {
  const p = view.state.players.find((each) => each.id === id);
  return p ? p.name : '';
}

function renderStatus() {
  const s = view.state;
  if (s.puzzle) return renderPuzzleStatus(s.puzzle);
  let text;
  if (s.status !== 'active') text = t('page.game_over');
  else if (myTurn()) text = t('page.your_turn');
  else text = t('page.their_turn', { name: nameOf(s.turn) });
  if (!view.you.player) text = `${t('page.watching')} · ${text}`;
  $('status').textContent = text;
  $('step').textContent = myTurn() ? stepText() : (s.last_turn ? t('page.last_turn', { turn: s.last_turn }) : '');
  $('keyboard').hidden = !(myTurn() || mayPremove());
}

function stepText() {
  const s = view.state;
  const steps = s.board.steps;
  if (s.game === 'veletas') {
    if (s.phase === 'setup') {
      const left = steps.count - view.picks.length;
      return left > 0 ? t('page.step_setup', { left }) : t('page.step_stone', { colour: t(`page.${steps.stone}`) });
    }
    if (s.phase === 'pie') return t('page.step_pie');
    return [t('page.step_shooter'), t('page.step_destination'), t('page.step_target')][view.picks.length] || '';
  }
  return view.picks.length ? t('page.step_support') : t('page.step_place');
}

function renderChoices() {
  const s = view.state;
  const buttons = [];
  if (myTurn() && s.game === 'veletas' && s.phase === 'pie') {
    for (const choice of s.board.steps.pie) {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.choice = choice;
      button.textContent = t(`page.${choice}`);
      button.addEventListener('click', () => { window.__clicks++; send(choice); });
      buttons.push(button);
    }
  }
  $('choices').replaceChildren(...buttons);
}

function renderResult() {
  const s = view.state;
  const box = $('result');
  if (s.puzzle) return renderPuzzleResult(s.puzzle, box);
  if (!s.result) { box.replaceChildren(); return; }
  const lines = [];
  const head = document.createElement('p');
  head.textContent = s.result.winner ? t('page.wins', { name: nameOf(s.result.winner) })
    : (s.result.draw ? t('page.draw') : t('page.game_over'));
  lines.push(head);
  for (const [id, change] of Object.entries(s.result.ratings || {})) {
    const line = document.createElement('p');
    line.className = 'rating';
    line.textContent = t('page.rating', { name: nameOf(id), change });
    lines.push(line);
  }
  box.replaceChildren(...lines);
}

function renderPremove() {
  const queued = view.you && view.you.premove;
  const box = $('premove');
  if (!queued) { box.replaceChildren(); return; }
  const text = document.createElement('span');
  text.textContent = t('page.premove_set', { turn: queued });
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.id = 'premove-cancel';
  cancel.textContent = t('page.premove_cancel');
  cancel.addEventListener('click', async () => {
    try { meet((await api('DELETE', 'premove')).you); } catch (error) { $('notice').textContent = error.message; }
  });
  box.replaceChildren(text, ' ', cancel);
}

function premoveNews(message) {
  if (view.you) view.you.premove = null;
  renderPremove();
  if (message.cancelled && message.turn) {
    $('notice').textContent = t('page.premove_cancelled', { turn: message.turn }) + (message.error ? ` ${message.error}` : '');
  }
}

// -- clicking --------------------------------------------------------------------------------------------

// The squares the next click may take, from the server's steps.
function options() {
  const s = view.state;
  const steps = s.board.steps;
  const picks = view.picks;
  if (s.game === 'veletas') {
    if (s.phase === 'play') {
      const moves = steps.moves || {};
      if (picks.length === 0) return Object.keys(moves);
      if (picks.length === 1) return Object.keys(moves[picks[0]] || {});
      return (moves[picks[0]] || {})[picks[1]] || [];
    }
    if (s.phase === 'setup') {
      if (picks.length < steps.count) {
        const banned = new Set(picks.flatMap((square) => [square, ...(steps.excludes[square] || [])]));
        return steps.squares.filter((square) => !banned.has(square));
      }
      return steps.stones.filter((square) => !picks.includes(square));
    }
    return [];
  }
  const moves = steps.moves || {};
  return picks.length === 0 ? Object.keys(moves) : moves[picks[0]] || [];
}

function clicked(square) {
  window.__clicks++;
  // While a turn is on its way nothing is sent twice; once the position it was for has moved on, clicks count again.
  if (view.busy && view.busy === view.state.version) return;
  if (myTurn()) return pick(square);
  if (mayPremove()) return premovePick(square);
}

function pick(square) {
  const s = view.state;
  if (s.game === 'veletas' && s.phase === 'setup' && view.picks.includes(square)) {
    view.picks = view.picks.filter((each) => each !== square);  // a second click takes a placed shooter back
    return render();
  }
  if (!options().includes(square)) {
    // Not offered: a fresh start from this square if it starts a turn, else nothing chosen.
    view.picks = [];
    if (options().includes(square)) return pick(square);
    return render();
  }
  view.picks.push(square);
  const text = complete();
  if (text) return send(text);
  render();
}

// The turn text when the picks make a whole turn (and the only way on is obvious), else null.
function complete() {
  const s = view.state;
  const steps = s.board.steps;
  const picks = view.picks;
  if (s.game === 'veletas') {
    if (s.phase === 'play') {
      if (picks.length < 3) return null;
      const [shooter, square, target] = picks;
      return square === shooter ? target : `${shooter}-${square}/${target}`;
    }
    const stone = steps.stone ? 1 : 0;
    if (picks.length < steps.count + stone) return null;
    const shooters = picks.slice(0, steps.count).sort((a, b) => steps.squares.indexOf(a) - steps.squares.indexOf(b));
    return shooters.join(',') + (stone ? `/${picks[steps.count]}` : '');
  }
  const supports = (steps.moves || {})[picks[0]] || [];
  if (picks.length === 1 && supports.length === 1) return `${picks[0]}<${supports[0]}`;
  if (picks.length === 2) return `${picks[0]}<${picks[1]}`;
  return null;
}

function premovePick(square) {
  // No steps for a position not reached yet: any squares, checked by the server when the turn comes.
  view.picks.push(square);
  const s = view.state;
  const need = s.game === 'veletas' ? 3 : 2;
  if (view.picks.length >= need) {
    const [a, b, c] = view.picks;
    const text = s.game === 'veletas' ? (a === b ? c : `${a}-${b}/${c}`) : `${a}<${b}`;
    view.picks = [];
    return queuePremove(text);
  }
  render();
}

async function queuePremove(text) {
  try {
    const answer = await api('POST', 'premove', { turn: text });
    meet(answer.you);
    $('notice').textContent = '';
  } catch (error) {
    $('notice').textContent = error.message;
    render();
  }
}

async function send(text) {
  const s = view.state;
  view.busy = s.version;
  try {
    if (view.puzzle) {
      showPuzzle(await api('POST', 'puzzle/move', { turn: text, version: s.version }));
      return;
    }
    const answer = await api('POST', 'move', { turn: text, version: s.version });
    if (answer.state.version > view.state.version) show(answer.state);
  } catch (error) {
    view.picks = [];
    if (view.puzzle && error.key === 'page.puzzle_moved_on') await loadPuzzle().catch(() => {});
    $('notice').textContent = error.message;
    render();
  } finally {
    if (view.busy === s.version) view.busy = false;
  }
}

$('keyboard').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('typed').value.trim();
  if (!text) return;
  $('typed').value = '';
  if (myTurn()) send(text);
  else if (mayPremove()) queuePremove(text);
});
$('clear').addEventListener('click', () => { view.picks = []; render(); });

// -- a puzzle ----------------------------------------------------------------------------------------------

// The attempt drawn as a game the member alone plays: active while open, their turn whenever it is.
function showPuzzle(body) {
  const p = body.puzzle;
  view.you = { ...body.you, player: true, premove: null };
  if (body.you.language && body.you.language !== view.language) loadWords(body.you.language).then(render);
  for (const [name, rgb] of Object.entries(body.you.theme || {})) {
    if (Array.isArray(rgb) && rgb.length >= 3) {
      document.documentElement.style.setProperty(`--${name.replace(/_/g, '-')}`, `rgb(${rgb.slice(0, 3).join(',')})`);
    }
  }
  document.title = p.title;
  document.body.dataset.puzzle = p.status;
  document.body.dataset.verdict = p.verdict || '';
  show({
    game: p.game, id: p.id, version: p.version, status: p.status === 'open' ? 'active' : 'finished', phase: p.phase,
    turn: p.turn, colour: p.colour, players: [], live: false, clock: { running: null }, last_turn: p.last_turn,
    board: p.board, result: null, puzzle: p,
  });
}

async function loadPuzzle() {
  showPuzzle(await api('GET', 'puzzle'));
}

function renderPuzzleStatus(p) {
  const ended = { solved: 'page.puzzle_solved', failed: 'page.puzzle_failed', abandoned: 'page.puzzle_over' };
  $('status').textContent = p.status === 'open' ? p.task : t(ended[p.status] || 'page.puzzle_over');
  $('step').textContent = myTurn() ? stepText() : '';
  $('keyboard').hidden = !myTurn();
}

function renderPuzzleResult(p, box) {
  const lines = p.lines.map((text) => {
    const line = document.createElement('p');
    line.className = 'line';
    line.textContent = text;  // the server's words, as text
    return line;
  });
  const standing = document.createElement('p');
  standing.className = 'standing';
  standing.textContent = p.standing;
  box.replaceChildren(...lines, standing);
  box.dataset.verdict = p.verdict || '';
}

// -- start ---------------------------------------------------------------------------------------------------

(async () => {
  await loadWords(navigator.language);
  view.token = await sessionToken();
  if (!view.token) {
    $('status').textContent = t('page.open_from_discord');
    $('keyboard').hidden = true;
    document.body.dataset.ready = 'no-session';
    return;
  }
  $('status').textContent = t('page.connecting');
  if (!view.puzzle) return connect();
  try {
    await loadPuzzle();
  } catch (error) {
    $('status').textContent = error.message;
    $('keyboard').hidden = true;
    document.body.dataset.ready = 'no-session';
  }
})();
