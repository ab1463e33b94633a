/**
 * What a browser shows without the token (an expired bookmark, a restarted engine with
 * --rotate-token, a copied URL without its ?token=): how to get the right URL, never the token.
 */
export function unauthorizedPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>engy panel: open the printed URL</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#1b1f24;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e9ee;background:#15181d}code{background:#262b33}}
code{background:#eef1f4;padding:.1em .3em;border-radius:4px}</style></head>
<body><h1>This engy panel engine needs its URL with the token</h1>
<p>The engine only answers a browser that opened the exact URL it printed at start
(<code>http://…/?token=…</code>). That URL stays the same across restarts unless the engine was started with
<code>--rotate-token</code>.</p>
<h2>How to get it</h2>
<ol>
<li>On the rig, look at the engine's output (or its journal, <code>journalctl --user -u 'engy-panel-*'</code>, when it runs as a service):
the line starting with <code>Open:</code> is the URL.</li>
<li>Or read the token file in the engine's data folder: <code>cat ~/.config/engy-panel/headless-token</code>
(or the folder given with <code>--data-dir</code>), and open <code>/?token=</code> followed by it.</li>
<li>From another computer, keep the SSH tunnel the engine printed open
(<code>ssh -N -L 7853:127.0.0.1:7853 you@rig</code>) and open the URL with <code>127.0.0.1:7853</code>.</li>
</ol>
<p>The page keeps working after that: the token moves into a cookie and out of the address bar.</p>
</body></html>
`;
}
