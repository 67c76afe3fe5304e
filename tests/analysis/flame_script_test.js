// The HTML report's flame graph script in a real DOM (jsdom): a click zooms
// into a frame, a click on "all" zooms out, and search highlights matching
// frames and says what share of the whole they cover.
//   NODE_PATH=/usr/share/nodejs node flame_script_test.js REPORT.html [SVG_ID]
'use strict';
const fs = require('fs');
let JSDOM;
try {
  ({ JSDOM } = require('jsdom'));
} catch (e) {
  const why = 'jsdom is not installed (scripts/setup.sh installs node-jsdom)';
  if (process.env.CI === 'true') {
    console.log('FAIL: ' + why + '; under CI=true setup.sh must have installed it');
    process.exit(1);
  }
  console.log('SKIP: ' + why);
  process.exit(77);
}

const [file, svgId = 'stacks'] = process.argv.slice(2);
const dom = new JSDOM(fs.readFileSync(file, 'utf8'), { runScripts: 'dangerously' });
const { document, window } = dom.window;
let failures = 0;
function check(ok, what) {
  if (!ok) { failures++; console.log('FAIL: ' + what); } else { console.log('ok   ' + what); }
}

const svg = document.getElementById(svgId);
check(svg !== null, 'the report has the ' + svgId + ' flame graph');
if (!svg) process.exit(1);
const width = +svg.getAttribute('data-width');
const frames = Array.from(svg.querySelectorAll('g.f'));
const rectOf = (g) => g.querySelector('rect');
const shown = (g) => g.style.display !== 'none';
const click = (g) => rectOf(g).dispatchEvent(new window.MouseEvent('click', { bubbles: true }));

// Zoom into the shallowest frame that is not the whole, the widest of those.
const target = frames.filter((g) => +g.dataset.d >= 1 && +g.dataset.w < 0.999)
  .sort((a, b) => (+a.dataset.d - +b.dataset.d) || (+b.dataset.w - +a.dataset.w))[0];
check(target !== undefined, 'a frame to zoom into');
if (!target) process.exit(1);
click(target);
const tx = +target.dataset.x, tw = +target.dataset.w;
check(Math.abs(+rectOf(target).getAttribute('width') - (width - 0.5)) < 0.2,
      'the clicked frame fills the width');
check(+rectOf(target).getAttribute('x') === 0, 'the clicked frame starts at the left edge');
const root = frames.find((g) => +g.dataset.d === 0);
check(shown(root) && Math.abs(+rectOf(root).getAttribute('width') - (width - 0.5)) < 0.2,
      'the root stays, spanning the zoomed frame');
const outside = frames.filter((g) => +g.dataset.d >= +target.dataset.d &&
  (+g.dataset.x + +g.dataset.w <= tx + 1e-9 || +g.dataset.x >= tx + tw - 1e-9));
check(outside.length > 0 && outside.every((g) => !shown(g)), 'frames beside it are hidden (' +
      outside.length + ')');
const inside = frames.filter((g) => +g.dataset.d > +target.dataset.d && +g.dataset.x >= tx - 1e-9 &&
  +g.dataset.x + +g.dataset.w <= tx + tw + 1e-9);
check(inside.every((g) => shown(g) &&
  Math.abs(+rectOf(g).getAttribute('width') - Math.max(0.1, +g.dataset.w / tw * width - 0.5)) < 0.2),
      'frames under it widen by 1/' + tw.toFixed(3) + ' (' + inside.length + ')');

click(root);
check(frames.every(shown), 'a click on "all" shows every frame again');
check(frames.every((g) => Math.abs(+rectOf(g).getAttribute('width') -
  Math.max(0.1, +g.dataset.w * width - 0.5)) < 0.2), 'and restores every width');

// Search for the name of the zoomed frame.
const name = target.dataset.n;
const box = document.getElementById('search-' + svgId);
const matched = document.getElementById('matched-' + svgId);
box.value = name;
box.dispatchEvent(new window.Event('input'));
const hits = frames.filter((g) => rectOf(g).getAttribute('fill') === '#e040fb');
check(hits.length >= 1 && hits.every((g) => g.dataset.n.toLowerCase().includes(name.toLowerCase())),
      'search "' + name + '" highlights ' + hits.length + ' matching frame(s) only');
let share = 0;
for (const g of hits) {
  const x = +g.dataset.x, w = +g.dataset.w;
  const nested = hits.some((o) => o !== g && +o.dataset.d < +g.dataset.d && x >= +o.dataset.x &&
    x + w <= +o.dataset.x + +o.dataset.w + 1e-9);
  if (!nested) share += w;
}
check(matched.textContent === 'matched ' + (share * 100).toFixed(2) + '% of all',
      'the matched share reads "' + matched.textContent + '"');
box.value = '';
box.dispatchEvent(new window.Event('input'));
check(frames.every((g) => rectOf(g).getAttribute('fill') === g.dataset.fill) &&
      matched.textContent === '', 'clearing the search restores the colours');
process.exit(failures ? 1 : 0);
