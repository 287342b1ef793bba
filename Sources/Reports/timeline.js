(function () {
'use strict';
var data = JSON.parse(document.getElementById('run-data').textContent);
var laneWidth = 150, GUTTER = 170, HEAD_H = 34, BASE_ROW = 24, OVERSCAN = 480, MAX_HEIGHT = 8e6;

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// Virtual time as the workbench prints it (Duration.workbenchText): 0s, 250ms, 1.5s, 2m, 1h30m.
function fmtTime(ns) {
  if (ns === 0) return '0s';
  var sign = ns < 0 ? '-' : '', n = Math.abs(ns);
  function dec(v, unit, suffix) {
    var whole = Math.floor(v / unit), fraction = v % unit;
    if (!fraction) return whole + suffix;
    var digits = String(fraction);
    while (digits.length < String(unit).length - 1) digits = '0' + digits;
    return whole + '.' + digits.replace(/0+$/, '') + suffix;
  }
  if (n % 1e9 === 0) {
    var s = n / 1e9, text = '';
    if (s >= 3600) { text += Math.floor(s / 3600) + 'h'; s %= 3600; }
    if (s >= 60) { text += Math.floor(s / 60) + 'm'; s %= 60; }
    if (s > 0) text += s + 's';
    return sign + text;
  }
  if (n >= 60e9) {
    var m = Math.floor(n / 60e9);
    return sign + (m >= 60 ? Math.floor(m / 60) + 'h' + (m % 60) + 'm' : m + 'm') + dec(n % 60e9, 1e9, 's');
  }
  if (n >= 1e9) return sign + dec(n, 1e9, 's');
  if (n >= 1e6) return sign + dec(n, 1e6, 'ms');
  if (n >= 1e3) return sign + dec(n, 1e3, '\u00b5s');
  return sign + n + 'ns';
}

function clip(text, limit) { return text.length > limit ? text.slice(0, limit - 1) + '\u2026' : text; }

// ---- The model: trace events and checks as rows, each drawn on the lifelines it involves.

function parseTrace(text) {
  var events = [], lines = text.split('\n'), lastT = 0;
  for (var i = 0; i < lines.length; i++) {
    if (!lines[i]) continue;
    var o = null;
    try { o = JSON.parse(lines[i]); } catch (e) { o = null; }
    if (!o || typeof o !== 'object') o = { t: lastT, actor: 'trace', event: 'unreadable-line', line: clip(lines[i], 200) };
    var f = {}, fields = [];
    for (var k in o) {
      if (k === 't' || k === 'actor' || k === 'event') continue;
      f[k] = String(o[k]); fields.push(k);
    }
    var t = Number(o.t); if (!isFinite(t)) t = lastT; lastT = t;
    events.push({ t: t, actor: String(o.actor), event: String(o.event), f: f, keys: fields });
  }
  return events;
}

function hostOf(address) { return String(address).replace(/:\d+$/, ''); }
function portOf(address) { var m = /:(\d+)$/.exec(String(address)); return m ? ':' + m[1] : ''; }
var ERRORISH = /fail|refus|reject|denied|error|unreachable|expired|abandon|timeout|unhandled|unknown|invalid|malformed/;

function genericLabel(e) {
  var parts = [e.event];
  for (var i = 0; i < e.keys.length; i++) parts.push(e.keys[i] + '=' + clip(e.f[e.keys[i]], 48));
  return clip(parts.join(' '), 120);
}

// Setup is every row before the scenario's first interesting one: actors starting and listening, addresses, link
// conditions (latency, bandwidth), connections opening and closing, apps declared and launched. Interesting: a
// message (an HTTP request, a URL opened on the bus, an event a system declares a message), a job landmark, a fault,
// an error, a check or a section heading.
var MESSAGES = { 'http-request': 1 };
function interesting(it) {
  if (it.kind !== 'event') return true;
  if (it.e.actor === 'net' && it.e.event === 'link') return false;
  if (it.shape === 'heading' || it.job || /\b(fault|error|heal)\b/.test(it.cls || '')) return true;
  return it.e.event in MESSAGES || (it.e.event in SYSTEM_EVENTS && SYSTEM_EVENTS[it.e.event].message) || (it.e.actor === 'bus' && it.e.event === 'open');
}

function buildModel(sc) {
  var events = parseTrace(sc.trace);
  var lanes = [], laneIndex = Object.create(null);
  function lane(name) {
    name = String(name);
    if (!(name in laneIndex)) { laneIndex[name] = lanes.length; lanes.push(name); }
    return laneIndex[name];
  }
  lane('scenario');
  var firstTarget = Object.create(null), conns = Object.create(null), open = [], lastClient = Object.create(null), hostOfAddress = Object.create(null);
  function node(name) { name = String(name); return hostOfAddress[name] || name; }
  function arrow(a, b, cls, label) {
    a = lane(node(a)); b = lane(node(b));
    return a === b ? { shape: 'mark', a: a, cls: cls, label: label } : { shape: 'arrow', a: a, b: b, cls: cls, label: label };
  }
  function cut(a, b, cls, label) {
    a = lane(node(a)); b = lane(node(b));
    return a === b ? { shape: 'mark', a: a, cls: cls, label: label } : { shape: 'cut', a: a, b: b, cls: cls, label: label };
  }
  function mark(a, cls, label) { return { shape: 'mark', a: lane(node(a)), cls: cls, label: label }; }
  function peer(c, end) { return end === c.client ? c.server : c.client; }
  // Which client sent what a server reads now: the peer of the newest connection it accepted that is still open.
  // The trace does not tie messages to connections, so with several open at once this is the best guess.
  function clientOf(server) {
    for (var i = open.length - 1; i >= 0; i--) {
      var c = open[i];
      if (c.server === server && c.accepted && !c.closed[server]) return c.client;
    }
    return null;
  }
  function closeConn(c) { var i = open.indexOf(c); if (i >= 0) open.splice(i, 1); }
  function severity(e, base) {
    var status = Number(e.f.status || e.f.http);
    return (ERRORISH.test(e.event) || status >= 400) ? 'error' : base;
  }
  // A message a server reads: an arrow from the client it came from (kept for the answer), or a mark on the server
  // reading `alone` (by default `label`) when no open connection tells who sent it.
  function request(a, cls, label, alone) {
    var client = clientOf(a); lastClient[a] = client;
    return client ? arrow(client, a, cls, label) : mark(a, cls, alone === undefined ? label : alone);
  }
  // The server's answer to the message it read last: an arrow back to that client.
  function answer(a, cls, label, alone) {
    var client = lastClient[a];
    return client ? arrow(a, client, cls, label) : mark(a, cls, alone === undefined ? label : alone);
  }
  // A step in a job's life, marked so a reader finds it at a glance and listed with the job's other steps above the
  // timeline; `phase` also picks its colour.
  function landmark(a, job, phase, label) {
    var row = mark(a, 'landmark ' + phase, label);
    row.job = a + ' job ' + job;
    row.phase = phase;
    return row;
  }
  // What a system's drawing of its own event (SYSTEM_EVENTS) draws with.
  var tools = { mark: mark, severity: severity, clip: clip, request: request, answer: answer, landmark: landmark };

  function describe(e, index) {
    var f = e.f, c;
    if (e.actor === 'net') {
      c = f.conn !== undefined ? conns[f.conn] : undefined;
      switch (e.event) {
      case 'connect':
        c = conns[f.conn] = { id: f.conn, client: node(f.from), server: hostOf(f.to), accepted: false, closed: {} };
        if (!(c.server in firstTarget)) firstTarget[c.server] = index;
        open.push(c);
        return arrow(c.client, c.server, 'net', 'connect ' + portOf(f.to) + ' #' + f.conn);
      case 'accept':
        if (c) c.accepted = true;
        return mark(hostOf(f.on), 'net minor', 'accept #' + f.conn);
      case 'connected':
        return c ? arrow(c.server, c.client, 'net minor', 'connected #' + f.conn) : mark('net', 'net', genericLabel(e));
      case 'refused':
        if (c) closeConn(c);
        return c ? arrow(c.server, c.client, 'error', 'refused #' + f.conn) : mark('net', 'error', genericLabel(e));
      case 'accept-failed':
        if (c) closeConn(c);
        return c ? arrow(c.server, c.client, 'error', 'accept failed #' + f.conn + ': ' + clip(f.error || '', 80))
                 : mark('net', 'error', genericLabel(e));
      case 'connect-timeout':
        if (c) closeConn(c);
        return c ? mark(c.client, 'error', 'connect timed out #' + f.conn) : mark('net', 'error', genericLabel(e));
      case 'unknown-host':
        return mark(f.from, 'error', 'unknown host ' + f.to);
      case 'close':
        if (!c) return mark(f.end || 'net', 'net', genericLabel(e));
        c.closed[f.end] = true;
        if (c.closed[c.client] && c.closed[c.server]) closeConn(c);
        return arrow(f.end, peer(c, f.end), 'net minor', 'close #' + f.conn);
      case 'reset':
        if (!c) return mark(f.end || 'net', 'error', genericLabel(e));
        closeConn(c);
        return cut(peer(c, f.end), f.end, 'error', 'reset #' + f.conn + ': ' + clip(f.reason || '', 60));
      case 'listen': case 'unlisten':
        return mark(hostOf(f.address), 'net minor', e.event + ' ' + portOf(f.address));
      case 'address':
        hostOfAddress[f.address] = f.host;
        return mark(f.host, 'net minor', 'address ' + f.address);
      case 'partition': case 'hold': case 'reset-armed':
        return cut(f.from, f.to, 'fault', e.event + (f['after-bytes'] ? ' after ' + f['after-bytes'] + ' bytes' : '') + ' ' + f.from + ' \u2192 ' + f.to);
      case 'heal': case 'release':
        return cut(f.from, f.to, 'heal', e.event + ' ' + f.from + ' \u2192 ' + f.to);
      case 'link':
        return cut(f.from, f.to, 'fault', 'link ' + clip(f.conditions || '', 70));
      }
      if (f.from && f.to) return arrow(f.from, hostOf(f.to), severity(e, 'net'), genericLabel(e));
      return mark(f.host || (f.on && hostOf(f.on)) || f.from || 'net', severity(e, 'net'), genericLabel(e));
    }
    if (e.actor === 'bus') {
      lane('bus'); // every actor of the trace has its lifeline, even one whose events are drawn on others
      if (e.event === 'open' && f.from && f.to) return arrow(f.from, f.to, 'bus', 'open ' + clip(f.url || '', 90));
      if (e.event === 'open-unhandled') return mark(f.from || 'bus', 'error', 'nobody opens ' + clip(f.url || '', 80));
      // What the bus records about one app (declared, registered a scheme, came to the foreground) sits on that app.
      var app = f.app || f.owner;
      return mark(app || 'bus', severity(e, 'bus'), (app ? 'bus: ' : '') + genericLabel(e));
    }
    if (e.actor === 'scenario') {
      switch (e.event) {
      case 'fault':
        var owner = String(f.point || '').split('.')[0];
        return mark(owner in laneIndex ? owner : 'scenario', 'fault', 'fault ' + f.point + ' ' + (f.mode || ''));
      case 'clock-skew': return mark(f.node || 'scenario', 'fault', 'clock skew ' + f.skew);
      case 'invariant-broken': return mark('scenario', 'error', 'invariant broken: ' + f.invariant);
      case 'section': return { shape: 'heading', a: lane('scenario'), cls: 'heading', label: f.title || '' };
      }
      return mark('scenario', severity(e, 'scen'), genericLabel(e));
    }
    var a = e.actor;
    switch (e.event) {
    case 'http-request':
      var line = (f.method || '') + ' ' + clip(f.path || '', 70);
      return request(a, 'http', line, e.event + ' ' + line);
    case 'http-response':
      var answered = answer(a, severity(e, 'http'), String(f.status), 'http-response ' + f.status);
      answered.status = Number(f.status);
      return answered;
    case 'fault-fired': return mark(a, 'fault', 'fault fired: ' + f.point);
    }
    // A system's drawing may decline (null): the event is then drawn as any other.
    var drawn = e.event in SYSTEM_EVENTS ? SYSTEM_EVENTS[e.event].draw(a, f, e, tools) : null;
    return drawn || mark(a, severity(e, ''), genericLabel(e));
  }

  var items = [], checks = sc.checks.map(function (c, n) { return { c: c, n: n }; });
  // Expectations first at the same place: invariants are checked after the statement that holds them.
  checks.sort(function (x, y) {
    return x.c.at - y.c.at || (x.c.kind === y.c.kind ? x.n - y.n : (x.c.kind === 'expectation' ? -1 : 1));
  });
  function checkItem(c) {
    var failed = c.failure !== null && c.failure !== undefined;
    var where = c.kind === 'invariant' ? (c.line > 0 ? 'after line ' + c.line : 'at the end') : 'line ' + c.line;
    var text = c.kind === 'invariant' ? 'invariant ' + c.text : c.text;
    var expected = !failed && c.expectedFailure === true;
    return { kind: 'check', failed: failed, expected: expected, check: c, t: c.t, where: where, text: text, failure: failed ? c.failure : null,
             search: (where + ' ' + text + ' ' + (failed ? 'failed ' + c.failure : expected ? 'ok expected failure' : 'ok')).toLowerCase() };
  }
  var ci = 0;
  for (var i = 0; i < events.length; i++) {
    while (ci < checks.length && checks[ci].c.at <= i) items.push(checkItem(checks[ci++].c));
    var e = events[i], d = describe(e, i);
    items.push({ kind: 'event', index: i, t: e.t, e: e, shape: d.shape, a: d.a, b: d.b, cls: d.cls, label: d.label, search: null,
                 job: d.job, phase: d.phase, status: d.status });
  }
  while (ci < checks.length) items.push(checkItem(checks[ci++].c));
  if (sc.error) {
    // The step that could not run comes before the run's closing events (end-of-run checks, unjoined, end).
    var at = items.length;
    while (at > 0) {
      var it = items[at - 1];
      var closing = it.kind === 'event' ? (it.e.actor === 'scenario' && (it.e.event === 'end' || it.e.event === 'unjoined'))
                                        : (it.check.kind === 'invariant' && it.check.line === 0);
      if (!closing) break;
      at--;
    }
    var m = /:(\d+): /.exec(sc.error);
    items.splice(at, 0, { kind: 'check', failed: true, stepError: true, t: at > 0 ? items[at - 1].t : 0,
                          where: m ? 'line ' + m[1] : 'step', text: 'step error', failure: sc.error,
                          search: ('step error ' + sc.error).toLowerCase() });
  }
  markExpectedFailures(items);
  markRecoveredAnswers(items);
  var model = orderLanes(lanes, items, events.length, firstTarget);
  foldSetup(model);
  return model;
}

// A failure an expectation asked for (it held expecting a 401, an error) is the story going as planned: the
// failures drawn since the previous check or section heading are drawn as expected, not red.
function markExpectedFailures(items) {
  var from = 0;
  for (var j = 0; j < items.length; j++) {
    var it = items[j];
    if (it.kind === 'event' && it.shape !== 'heading') continue;
    if (it.expected) {
      for (var k = from; k < j; k++) {
        var ev = items[k];
        if (ev.kind === 'event' && /\berror\b/.test(ev.cls || '')) { ev.cls = ev.cls.replace(/\berror\b/, 'expected'); ev.expectedBy = it.where; }
      }
    }
    from = j + 1;
  }
}

// A challenge answered or a refusal retried is HTTP working as designed: a 401 (a Basic challenge the client then
// answered) or a 503 or 429 (a refusal it then retried) is drawn as expected, not red, when the next answer the same
// server sends the same client is a success. Only answers drawn as arrows count: without a known client, the next
// answer may be someone else's.
var RETRIED = { 401: 'the client answered the challenge', 503: 'the client retried', 429: 'the client retried' };
function markRecoveredAnswers(items) {
  var waiting = Object.create(null); // "server>client" -> the failed answers not yet followed by a success
  for (var j = 0; j < items.length; j++) {
    var it = items[j];
    if (it.kind !== 'event' || it.shape !== 'arrow' || it.status === undefined) continue;
    var pair = it.a + '>' + it.b;
    if (it.status >= 200 && it.status < 300) {
      (waiting[pair] || []).forEach(function (failed) {
        failed.cls = failed.cls.replace(/\berror\b/, 'expected');
        failed.recovered = RETRIED[failed.status] + ', and the server then answered ' + it.status + ' (#' + (it.index + 1) + ')';
      });
      delete waiting[pair];
    } else if (it.status in RETRIED && /\berror\b/.test(it.cls || '')) {
      (waiting[pair] = waiting[pair] || []).push(it);
    } else {
      delete waiting[pair];
    }
  }
}

// The setup rows fold into one row at the top (see interesting()); the model keeps them, the layout hides them.
function foldSetup(model) {
  var items = model.items, n = 0;
  while (n < items.length && !interesting(items[n])) n++;
  model.setup = n < 2 ? 0 : n;
  if (!model.setup) return;
  var actors = {};
  for (var i = 0; i < n; i++) if (items[i].e.event === 'started') actors[items[i].e.actor] = true;
  var started = Object.keys(actors);
  items.unshift({ kind: 'fold', t: items[0].t, count: n, search: '',
                  label: 'setup: ' + n + ' events' + (started.length ? ' (' + started.length + ' actor' + (started.length === 1 ? '' : 's') + ' started)' : '') });
}

// Left to right as a sequence diagram reads: the scenario, then the clients (nodes that only ever connect), then
// the servers in the order they were first connected to (so phone, proxy, server), then everyone else, then bus and net.
function orderLanes(lanes, items, eventCount, firstTarget) {
  function rank(name, i) {
    if (name === 'scenario') return [0, i];
    if (name === 'bus' || name === 'net') return [4, i];
    if (name in firstTarget) return [2, firstTarget[name]];
    if (clients[name]) return [1, i];
    return [3, i];
  }
  var clients = {};
  items.forEach(function (it) { if (it.kind === 'event' && it.e.actor === 'net' && it.e.event === 'connect') clients[it.e.f.from] = true; });
  var order = lanes.map(function (name, i) { return { name: name, i: i, r: rank(name, i) }; });
  order.sort(function (x, y) { return x.r[0] - y.r[0] || x.r[1] - y.r[1] || x.i - y.i; });
  var moved = new Int32Array(lanes.length);
  order.forEach(function (o, to) { moved[o.i] = to; });
  items.forEach(function (it) { if (it.a !== undefined) it.a = moved[it.a]; if (it.b !== undefined) it.b = moved[it.b]; });
  return { lanes: order.map(function (o) { return o.name; }), items: items, events: eventCount };
}

// ---- The page.

var root = document.body;
var state = { scenario: -1, model: null, list: null, pos: null, ys: null, rowH: BASE_ROW, zoom: 1, timeScale: false,
              pxPerNs: 0, matches: [], matchFlags: null, matchAt: -1, only: false, folded: true, fitLanes: true, selected: -1, flash: -1, shown: '' };
var models = [];

var header = el('header', 'run');
var failedCount = data.scenarios.filter(function (s) { return !s.passed; }).length;
var runPassed = failedCount === 0;
header.appendChild(el('h1', null, 'workbench run'));
header.appendChild(el('span', 'verdict ' + (runPassed ? 'pass' : 'fail'), runPassed ? 'PASS' : 'FAIL'));
var seeds = data.scenarios.map(function (s) { return s.seed; }).filter(function (s, i, all) { return all.indexOf(s) === i; });
var totalChecks = 0, totalFailed = 0, totalBroken = 0;
data.scenarios.forEach(function (s) {
  s.checks.forEach(function (c) {
    if (c.kind === 'expectation') { totalChecks++; if (c.failure !== null) totalFailed++; } else totalBroken++;
  });
});
header.appendChild(el('span', 'facts', data.scenarios.length + ' scenario' + (data.scenarios.length === 1 ? '' : 's')
  + (failedCount ? ' (' + failedCount + ' failed)' : '') + ' \u00b7 ' + totalChecks + ' expectations'
  + (totalFailed ? ' (' + totalFailed + ' failed)' : '') + (totalBroken ? ' \u00b7 ' + totalBroken + ' invariants broken' : '')
  + ' \u00b7 seed ' + seeds.join(', ')));
header.appendChild(el('span', 'facts digest', 'digest ' + data.digest));
root.appendChild(header);

// A swarm's reach: per point, the seeds (with --explore: the runs) that reached it; the points never reached first,
// where they are seen.
if (data.reach) {
  var reachBox = el('details', 'reach');
  var never = data.reach.points.filter(function (p) { return p.seeds === 0; });
  reachBox.open = true;
  var unit = data.reach.explore ? 'runs' : 'seeds';
  reachBox.appendChild(el('summary', null, 'Reach: ' + (data.reach.points.length - never.length) + ' of ' + data.reach.points.length
    + ' points reached by ' + data.reach.seeds + ' ' + unit
    + (data.reach.explore ? ' (--explore: ' + data.reach.explore.fresh + ' of fresh seeds, ' + data.reach.explore.mutants + ' of mutants; counted as runs)' : '')
    + (never.length ? ' \u00b7 never reached: ' + never.length : '')
    + (never.length && data.reach.required ? ' (required: FAIL)' : '')));
  var table = el('table', 'reach');
  var headRow = el('tr'); headRow.appendChild(el('th', null, unit)); headRow.appendChild(el('th', null, 'point')); table.appendChild(headRow);
  never.concat(data.reach.points.filter(function (p) { return p.seeds > 0; })).forEach(function (p) {
    var row = el('tr', p.seeds === 0 ? 'never' : null);
    row.appendChild(el('td', 'seeds', String(p.seeds)));
    row.appendChild(el('td', null, p.point + (p.seeds === 0 ? ' \u2014 never reached' : '')));
    table.appendChild(row);
  });
  reachBox.appendChild(table);
  root.appendChild(reachBox);
}

var nav = el('nav', 'scenarios');
nav.setAttribute('aria-label', 'Scenarios');
data.scenarios.forEach(function (s, i) {
  var b = el('button', s.passed ? 'passed' : 'failed', (s.passed ? '\u2713 ' : '\u2717 ') + s.title);
  b.title = s.file;
  b.addEventListener('click', function () { select(i); });
  nav.appendChild(b);
});
if (data.scenarios.length > 1) root.appendChild(nav);

var head = el('section', 'scenario');
root.appendChild(head);

var toolbar = el('div', 'toolbar');
function button(text, title, action) {
  var b = el('button', null, text); b.title = title; b.type = 'button';
  b.addEventListener('click', action); toolbar.appendChild(b); return b;
}
button('\u2212', 'Zoom out (Ctrl+wheel, -)', function () { zoomBy(1 / 1.5); });
button('+', 'Zoom in (Ctrl+wheel, +)', function () { zoomBy(1.5); });
button('1:1', 'Reset the zoom', function () { zoomBy(1 / state.zoom); });
var modeButton = button('', 'Rows in event order, or spaced by virtual time', function () {
  var anchor = anchorItem(); state.timeScale = !state.timeScale; state.zoom = 1; relayout(anchor);
});
var lanesButton = button('', 'Narrow the lanes to fit the window, or give each its full width and scroll sideways', function () {
  state.fitLanes = !state.fitLanes; drawLanes(); render(true);
});
var search = el('input'); search.type = 'search'; search.placeholder = 'Search actor, event, fields\u2026 ( / )';
search.setAttribute('aria-label', 'Search the trace');
toolbar.appendChild(search);
button('\u25b2', 'Previous match (Shift+Enter)', function () { step(-1); });
button('\u25bc', 'Next match (Enter)', function () { step(1); });
var count = el('span', 'count'); toolbar.appendChild(count);
var onlyLabel = el('label'), only = el('input'); only.type = 'checkbox';
onlyLabel.appendChild(only); onlyLabel.appendChild(document.createTextNode('only matches'));
toolbar.appendChild(onlyLabel);
var setupLabel = el('label'), showSetup = el('input'); showSetup.type = 'checkbox';
setupLabel.title = 'Setup: the rows before the first message, check, fault or heading (actors starting, connections opening)';
setupLabel.appendChild(showSetup); setupLabel.appendChild(document.createTextNode('show setup'));
toolbar.appendChild(setupLabel);
showSetup.addEventListener('change', function () { setFolded(!showSetup.checked); });
var status = el('span', 'status'); toolbar.appendChild(status);
root.appendChild(toolbar);

var timeline = el('div', 'timeline'); timeline.tabIndex = 0;
var heads = el('div', 'heads'), canvas = el('div', 'canvas'), lifelines = el('div', 'lifelines'), rows = el('div', 'rows');
canvas.appendChild(lifelines); canvas.appendChild(rows);
timeline.appendChild(heads); timeline.appendChild(canvas);
root.appendChild(timeline);

var detail = el('aside', 'detail'); detail.hidden = true; root.appendChild(detail);

function laneX(i) { return GUTTER + i * laneWidth + laneWidth / 2; }

// Lanes narrow to fit the window, so every lifeline is in view at once (names shortened, whole in their tooltip);
// below 56 px they would be unreadable, and the timeline scrolls sideways instead. "Lanes: full width" gives each
// lane 150 px and scrolls.
var FIT_MIN = 56, FULL = 150;
function drawLanes() {
  var model = state.model, n = model.lanes.length, room = (timeline.clientWidth || 1200) - GUTTER - 24;
  laneWidth = state.fitLanes ? Math.max(FIT_MIN, Math.min(FULL, Math.floor(room / n))) : FULL;
  lanesButton.textContent = state.fitLanes ? 'Lanes: fit window' : 'Lanes: full width';
  // Room on the right for the last lane's labels, unless the lanes were narrowed to fit.
  var width = GUTTER + n * laneWidth + (laneWidth < FULL ? 24 : 320);
  heads.style.width = canvas.style.width = width + 'px';
  heads.textContent = ''; lifelines.textContent = '';
  timeline.classList.toggle('narrow', laneWidth < 100);
  model.lanes.forEach(function (name, i) {
    var h = el('div', 'lifeline-head' + (name === 'scenario' ? ' scenario-lane' : ''), name);
    h.dataset.actor = name; h.title = name; h.style.left = laneX(i) + 'px';
    h.style.width = (laneWidth - 6) + 'px'; h.style.marginLeft = (3 - laneWidth / 2) + 'px';
    heads.appendChild(h);
    var line = el('div', 'lifeline'); line.dataset.actor = name; line.style.left = laneX(i) + 'px';
    lifelines.appendChild(line);
  });
}

function select(index) {
  if (index === state.scenario) return;
  var started = performance.now();
  state.scenario = index;
  var sc = data.scenarios[index];
  if (!models[index]) models[index] = buildModel(sc);
  var model = state.model = models[index];
  Array.prototype.forEach.call(nav.children, function (b, i) { b.classList.toggle('selected', i === index); });

  head.textContent = '';
  var h2 = el('h2'); h2.appendChild(el('span', null, sc.title));
  h2.appendChild(el('span', 'verdict ' + (sc.passed ? 'pass' : 'fail'), sc.passed ? 'PASS' : 'FAIL'));
  head.appendChild(h2);
  var expectations = sc.checks.filter(function (c) { return c.kind === 'expectation'; });
  var failedExpectations = expectations.filter(function (c) { return c.failure !== null; }).length;
  var broken = sc.checks.length - expectations.length;
  var meta = el('dl', 'meta');
  [['file', sc.file], ['seed', sc.seed], ['digest', sc.digest], ['events', String(model.events)],
   ['expectations', (expectations.length - failedExpectations) + '/' + expectations.length + ' held'],
   ['invariants broken', String(broken)], ['virtual time', sc.virtualTime]].forEach(function (pair) {
    var d = el('div'); d.appendChild(el('dt', null, pair[0])); d.appendChild(el('dd', pair[0] === 'digest' ? 'digest' : null, pair[1]));
    meta.appendChild(d);
  });
  head.appendChild(meta);
  if (sc.error) head.appendChild(el('div', 'step-error', sc.error));
  var failures = el('ul', 'failures');
  failures.setAttribute('aria-label', 'Failures');
  model.items.forEach(function (it, i) {
    if (it.kind !== 'check' || !it.failed) return;
    var li = el('li', 'failed'), b = el('button');
    b.appendChild(el('span', 'where', it.where));
    b.appendChild(document.createTextNode(it.text + ' \u2014 ' + it.failure));
    b.addEventListener('click', function () { jump(i, true); });
    li.appendChild(b); failures.appendChild(li);
  });
  if (failures.children.length) head.appendChild(failures);
  var outline = landmarksOutline(model);
  if (outline) head.appendChild(outline);

  drawLanes();
  setupLabel.hidden = !model.setup;
  state.matchFlags = new Uint8Array(model.items.length);
  state.selected = -1; state.flash = -1; state.zoom = 1; state.ys = null; state.pos = null; state.shown = ''; detail.hidden = true;
  timeline.dataset.events = String(model.events);
  timeline.dataset.items = String(model.items.length);
  runSearch(false);
  var first = model.items.findIndex(function (it) { return it.kind === 'check' && it.failed; });
  if (first >= 0) jump(first, true); else { timeline.scrollTop = 0; render(true); }
  status.textContent = model.events + ' events \u00b7 ' + model.lanes.length + ' lifelines \u00b7 drawn in '
    + Math.round(performance.now() - started) + ' ms';
  root.dataset.renderMs = String(Math.round(performance.now() - started));
}

// The scenario's sections and each job's life as links into the timeline: where to look, at a glance.
function landmarksOutline(model) {
  var sections = [], jobs = [], byJob = Object.create(null);
  model.items.forEach(function (it, i) {
    if (it.shape === 'heading') sections.push(i);
    if (!it.job) return;
    if (!(it.job in byJob)) { byJob[it.job] = []; jobs.push(it.job); }
    byJob[it.job].push(i);
  });
  if (!sections.length && !jobs.length) return null;
  var box = el('div', 'landmarks');
  function link(cls, text, i) {
    var b = el('button', cls, text); b.type = 'button';
    b.addEventListener('click', function () { jump(i, true); });
    return b;
  }
  if (sections.length) {
    var list = el('nav', 'sections'); list.setAttribute('aria-label', 'Sections');
    list.appendChild(el('span', 'what', 'Sections'));
    sections.forEach(function (i) { list.appendChild(link('section', model.items[i].label, i)); });
    box.appendChild(list);
  }
  // A swarm run can print hundreds of jobs: the first few are listed, the rest are found by searching "job-".
  var JOBS_LISTED = 12;
  jobs.slice(0, JOBS_LISTED).forEach(function (job) {
    var line = el('div', 'job'); line.dataset.job = job;
    line.appendChild(el('span', 'what', job));
    byJob[job].forEach(function (i) {
      var it = model.items[i];
      line.appendChild(link('landmark ' + it.phase, it.phase + ' ' + fmtTime(it.t), i));
    });
    box.appendChild(line);
  });
  if (jobs.length > JOBS_LISTED) box.appendChild(el('div', 'more', (jobs.length - JOBS_LISTED) + ' more jobs: search for job-'));
  return box;
}

// ---- Layout: a y position per shown row, in event order or spaced by virtual time.

function relayout(anchor) {
  var model = state.model, items = model.items;
  var list = state.list = state.only && state.query ? Int32Array.from(state.matches) : foldedList(model);
  var n = list ? list.length : items.length;
  var pos = state.pos = new Int32Array(items.length).fill(-1);
  for (var k = 0; k < n; k++) pos[list ? list[k] : k] = k;
  var ys = state.ys = new Float64Array(n + 1);
  modeButton.textContent = state.timeScale ? 'Scale: virtual time' : 'Scale: event order';
  if (!state.timeScale) {
    state.rowH = Math.max(5, Math.min(96, BASE_ROW * state.zoom));
    for (k = 0; k <= n; k++) ys[k] = k * state.rowH;
  } else {
    state.rowH = BASE_ROW;
    var first = n ? items[list ? list[0] : 0].t : 0, last = n ? items[list ? list[n - 1] : n - 1].t : 0;
    var span = Math.max(1, last - first);
    var base = Math.max(n * BASE_ROW, timeline.clientHeight * 2) / span;
    var limit = Math.max(0, MAX_HEIGHT - (n + 1) * BASE_ROW) / span;
    state.pxPerNs = Math.min(limit, base * state.zoom);
    var y = 0;
    for (k = 0; k < n; k++) {
      if (k > 0) y += BASE_ROW + Math.max(0, items[list ? list[k] : k].t - items[list ? list[k - 1] : k - 1].t) * state.pxPerNs;
      ys[k] = y;
    }
    ys[n] = y + BASE_ROW;
  }
  canvas.style.height = (ys[n] + 40) + 'px';
  if (anchor) {
    var p = pos[anchor.item];
    if (p >= 0) timeline.scrollTop = HEAD_H + ys[p] - anchor.offset;
  }
  render(true);
}

// The row at a height of the view (its middle by default) and where it is, to keep it there across a new layout.
function anchorItem(clientY) {
  if (!state.ys || !state.model || !rowCount()) return null;
  var offset = clientY === undefined ? timeline.clientHeight / 2 : clientY - timeline.getBoundingClientRect().top;
  var k = Math.max(0, Math.min(lowerBound(state.ys, timeline.scrollTop - HEAD_H + offset) - 1, rowCount() - 1));
  return { item: state.list ? state.list[k] : k, offset: HEAD_H + state.ys[k] - timeline.scrollTop };
}

// Every row but the setup (items 1…setup, after the fold row), while it is folded; null when all are shown.
function foldedList(model) {
  if (!state.folded || !model.setup) return null;
  var list = new Int32Array(model.items.length - model.setup);
  list[0] = 0;
  for (var k = 1; k < list.length; k++) list[k] = model.setup + k;
  return list;
}

function setFolded(folded) {
  state.folded = folded; showSetup.checked = !folded;
  relayout(anchorItem());
}

function rowCount() { return state.list ? state.list.length : state.model.items.length; }

function lowerBound(ys, y) {
  var lo = 0, hi = rowCount();
  while (lo < hi) { var mid = (lo + hi) >> 1; if (ys[mid] < y) lo = mid + 1; else hi = mid; }
  return lo;
}

function zoomBy(factor, clientY) {
  var anchor = anchorItem(clientY);
  state.zoom = Math.max(1 / 256, Math.min(4096, state.zoom * factor));
  if (!state.timeScale) state.zoom = Math.max(5 / BASE_ROW, Math.min(4, state.zoom));
  relayout(anchor);
}

// ---- Drawing only the rows near the view.

function render(force) {
  var model = state.model; if (!model) return;
  var n = rowCount(), top = timeline.scrollTop - HEAD_H, height = timeline.clientHeight || 600;
  var a = Math.max(0, lowerBound(state.ys, top - OVERSCAN) - 1), b = Math.min(n, lowerBound(state.ys, top + height + OVERSCAN) + 1);
  var key = a + ':' + b;
  if (!force && key === state.shown) return;
  state.shown = key;
  var dense = state.rowH < 14;
  rows.className = 'rows' + (dense ? ' dense' : '');
  var fragment = document.createDocumentFragment();
  for (var k = a; k < b; k++) fragment.appendChild(rowElement(k, dense));
  rows.textContent = '';
  rows.appendChild(fragment);
  timeline.dataset.rows = String(b - a);
}

function rowElement(k, dense) {
  var i = state.list ? state.list[k] : k, it = state.model.items[i], h = state.rowH;
  var cls = 'row ' + it.kind;
  if (it.kind === 'check') cls += it.failed ? ' failed' : it.expected ? ' ok expected' : ' ok';
  if (it.stepError) cls += ' step-error';
  if (it.shape === 'heading') cls += ' heading';
  if (it.job) cls += ' landmark ' + it.phase;
  if (state.matchFlags[i]) cls += ' match';
  if (state.matchAt >= 0 && state.matches[state.matchAt] === i) cls += ' current';
  if (state.selected === i) cls += ' selected';
  if (state.flash === i) cls += ' flash';
  var row = el('div', cls);
  row.dataset.item = String(i);
  if (it.kind === 'event') { row.dataset.actor = it.e.actor; row.dataset.event = it.e.event; }
  row.style.top = state.ys[k] + 'px'; row.style.height = h + 'px';
  row.style.width = canvas.style.width;
  if (!dense) row.appendChild(el('span', 'when', (it.kind === 'event' ? '#' + (it.index + 1) + '  ' : '') + fmtTime(it.t)));
  var mid = h / 2;
  if (it.kind === 'fold') {
    var fold = el('button', 'fold-toggle', (state.folded ? '\u25b8 ' : '\u25be ') + it.label + (state.folded ? ' \u2014 show' : ' \u2014 hide'));
    fold.type = 'button'; fold.setAttribute('aria-expanded', String(!state.folded));
    fold.style.left = (GUTTER - 4) + 'px';
    row.appendChild(fold);
  } else if (it.shape === 'heading') {
    var heading = el('div', 'heading-band', it.label);
    heading.setAttribute('role', 'heading'); heading.setAttribute('aria-level', '3');
    heading.style.left = (GUTTER - 4) + 'px'; heading.style.width = (state.model.lanes.length * laneWidth + 8) + 'px';
    row.appendChild(heading);
  } else if (it.kind === 'check') {
    var band = el('div', 'band');
    band.style.left = (GUTTER - 4) + 'px'; band.style.width = (state.model.lanes.length * laneWidth + 8) + 'px';
    band.appendChild(el('span', 'mark-text', it.failed ? '\u2717' : '\u2713'));
    band.appendChild(el('span', 'where', it.where));
    band.appendChild(el('span', 'text', it.text));
    if (it.expected) band.appendChild(el('span', 'note', 'expected failure'));
    if (it.failed && !it.stepError) band.appendChild(el('span', 'failure', '\u2014 ' + it.failure));
    if (it.stepError) band.appendChild(el('span', 'failure', it.failure));
    band.title = it.where + ': ' + it.text + (it.failed ? ' \u2014 ' + it.failure : '');
    row.appendChild(band);
  } else if (it.shape === 'mark') {
    var m = el('div', 'mark ' + (it.cls || ''));
    m.style.left = laneX(it.a) + 'px'; m.style.top = mid + 'px';
    if (!dense) m.appendChild(el('span', 'label', it.label));
    row.appendChild(m);
  } else {
    var x1 = laneX(it.a), x2 = laneX(it.b);
    var line = el('div', (it.shape === 'cut' ? 'cut ' : 'arrow ') + (x2 > x1 ? 'right ' : 'left ') + (it.cls || ''));
    line.style.left = Math.min(x1, x2) + 'px'; line.style.width = Math.abs(x2 - x1) + 'px'; line.style.top = mid + 'px';
    if (!dense) line.appendChild(el('span', 'label', it.label));
    row.appendChild(line);
  }
  if (it.kind === 'event') row.title = it.label;
  if (state.timeScale && k > 0) {
    var gap = state.ys[k] - state.ys[k - 1] - h;
    if (gap > 2 * h) {
      var prev = state.model.items[state.list ? state.list[k - 1] : k - 1];
      var g = el('div', 'gap', '+' + fmtTime(it.t - prev.t));
      g.style.top = (-gap) + 'px'; g.style.height = gap + 'px';
      row.appendChild(g);
    }
  }
  return row;
}

var scheduled = false;
timeline.addEventListener('scroll', function () {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(function () { scheduled = false; render(false); });
});
timeline.addEventListener('wheel', function (event) {
  if (!event.ctrlKey && !event.metaKey) return;
  event.preventDefault();
  zoomBy(event.deltaY < 0 ? 1.25 : 0.8, event.clientY);
}, { passive: false });
window.addEventListener('resize', function () { if (state.model && state.fitLanes) drawLanes(); render(true); });

rows.addEventListener('click', function (event) {
  var row = event.target.closest ? event.target.closest('.row') : null;
  if (!row) return;
  if (row.classList.contains('fold')) { setFolded(!state.folded); return; }
  state.selected = Number(row.dataset.item);
  showDetail(state.model.items[state.selected]);
  render(true);
});

function showDetail(it) {
  detail.textContent = '';
  var close = el('button', 'close', '\u00d7'); close.title = 'Close'; close.type = 'button';
  close.addEventListener('click', function () { detail.hidden = true; state.selected = -1; render(true); });
  detail.appendChild(close);
  var table = el('table');
  function add(key, value) { var tr = el('tr'); tr.appendChild(el('td', null, key)); tr.appendChild(el('td', 'mono', value)); table.appendChild(tr); }
  if (it.kind === 'event') {
    detail.appendChild(el('h3', null, '#' + (it.index + 1) + ' ' + it.e.actor + ' ' + it.e.event));
    add('time', fmtTime(it.t) + ' (' + it.t + ' ns)');
    it.e.keys.forEach(function (k) { add(k, it.e.f[k]); });
    add('drawn as', it.label);
    if (it.expectedBy) add('expected', 'a failure the expectation at ' + it.expectedBy + ' asked for');
    if (it.recovered) add('expected', it.recovered);
  } else {
    detail.appendChild(el('h3', null, (it.failed ? '\u2717 ' : '\u2713 ') + it.where + ': ' + it.text));
    add('time', fmtTime(it.t));
    if (it.check) add('trace position', 'after event #' + it.check.at);
    add('result', it.failed ? it.failure : it.expected ? 'held: the failure it expected happened' : 'held');
  }
  detail.appendChild(table);
  detail.hidden = false;
}

// ---- Search: every word must occur in the row's actor, event, fields or drawing.

function runSearch(move) {
  var q = search.value.trim().toLowerCase(), words = q ? q.split(/\s+/) : [];
  state.query = q;
  var items = state.model.items, flags = state.matchFlags, matches = [];
  flags.fill(0);
  if (words.length) {
    for (var i = 0; i < items.length; i++) {
      var s = searchText(items[i]), all = true;
      for (var w = 0; w < words.length && all; w++) all = s.indexOf(words[w]) >= 0;
      if (all) { matches.push(i); flags[i] = 1; }
    }
  }
  state.matches = matches; state.matchAt = -1;
  relayout(move ? null : anchorItem());
  count.textContent = words.length ? (matches.length ? matches.length + ' matches' : 'no match') : '';
  if (move && matches.length) step(1);
}

// Built on the first search only: most views of a large trace never search.
function searchText(it) {
  if (it.search === null) {
    var e = it.e, parts = [e.actor, e.event];
    for (var k = 0; k < e.keys.length; k++) parts.push(e.keys[k] + '=' + e.f[e.keys[k]]);
    parts.push(it.label);
    it.search = parts.join(' ').toLowerCase();
  }
  return it.search;
}

function step(direction) {
  var matches = state.matches; if (!matches.length) return;
  if (state.matchAt < 0) {
    var here = anchorItem(), from = here ? here.item : 0, k = 0;
    while (k < matches.length && matches[k] < from) k++;
    state.matchAt = direction > 0 ? k % matches.length : (k - 1 + matches.length) % matches.length;
  } else {
    state.matchAt = (state.matchAt + direction + matches.length) % matches.length;
  }
  count.textContent = (state.matchAt + 1) + ' / ' + matches.length;
  jump(matches[state.matchAt], false);
}

function jump(item, flash) {
  if (state.pos && state.pos[item] < 0) {
    only.checked = false; state.only = false;
    if (item <= state.model.setup) { state.folded = false; showSetup.checked = true; }
  }
  if (!state.pos || state.pos[item] < 0) relayout(null);
  var k = state.pos[item];
  timeline.scrollTop = Math.max(0, HEAD_H + state.ys[k] - timeline.clientHeight / 2 + state.rowH / 2);
  state.selected = item;
  if (flash) {
    // Once: rows are redrawn while scrolling, and a lasting class would flash again each time.
    state.flash = item;
    setTimeout(function () { if (state.flash === item) state.flash = -1; }, 1600);
  }
  render(true);
}

var searchTimer = 0;
search.addEventListener('input', function () { clearTimeout(searchTimer); searchTimer = setTimeout(function () { runSearch(true); }, 120); });
search.addEventListener('keydown', function (event) {
  if (event.key === 'Enter') { event.preventDefault(); clearTimeout(searchTimer); if (state.query !== search.value.trim().toLowerCase()) runSearch(true); else step(event.shiftKey ? -1 : 1); }
  if (event.key === 'Escape') { search.value = ''; runSearch(false); }
});
only.addEventListener('change', function () { state.only = only.checked; relayout(anchorItem()); });
document.addEventListener('keydown', function (event) {
  if (event.target === search) return;
  if (event.key === '/') { event.preventDefault(); search.focus(); }
  else if (event.key === '+' || event.key === '=') zoomBy(1.5);
  else if (event.key === '-') zoomBy(1 / 1.5);
  else if (event.key === 'n') step(1);
  else if (event.key === 'N') step(-1);
  else if (event.key === 'Escape') { detail.hidden = true; }
});

// #scenario=2&event=120 opens the second scenario at its 120th trace event (both count from 1) with its detail;
// q=TEXT searches.
function fromHash() {
  var params = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (p) { var kv = p.split('='); if (kv.length === 2) params[kv[0]] = kv[1]; });
  var s = Number(params.scenario), e = Number(params.event);
  if (s >= 1 && s <= data.scenarios.length) select(s - 1); else if (state.scenario < 0) select(0);
  if (params.q) {
    try { search.value = decodeURIComponent(params.q); } catch (error) { search.value = params.q; }
    runSearch(true);
  }
  if (e >= 1) {
    var items = state.model.items;
    // A link to an event shows where it is and what it is.
    for (var i = 0; i < items.length; i++) {
      if (items[i].kind === 'event' && items[i].index === e - 1) { jump(i, false); showDetail(items[i]); render(true); break; }
    }
  }
}
window.addEventListener('hashchange', fromHash);
if (data.scenarios.length) fromHash(); else head.appendChild(el('p', null, data.reach ? 'No seed failed.' : 'The run had no scenarios.'));
root.dataset.ready = 'true';
})();
