import * as fs from "node:fs"; globalThis.__fs = fs;
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['dist/cli/main.js','serve','--port','0','--config','test/fixtures/gateway.yaml'], {stdio:['ignore','ignore','pipe']});
const url = await new Promise(r => child.stderr.on('data', d => { const m = /listening on (http:\/\/\S+)/.exec(String(d)); if (m) r(m[1]); else process.stderr.write(d); }));
const c = new Client({name:'p',version:'1'});
await c.connect(new StreamableHTTPClientTransport(new URL(url)));
const tools = await c.listTools();
console.log(tools.tools.map(t=>t.name).join(' '));
console.log(JSON.stringify(tools.tools.find(t=>t.name==='execute_code')).slice(0,1500));
for (const code of ['return 1', "await tools.call('fixture:noop', {}); return 2", "return await tools.fixture.noop({})", "let s=0; for (let i=0;i<1e5;i++) s+=i; await tools.call('fixture:noop',{}); return s",
 "const a=[]; for(let i=0;i<40;i++) a.push('x'.repeat(1<<20)); return a.length",
 "const a=[]; for(let i=0;i<40*1024*1024/8;i++) a.push(i*1.5); return a.length"]) {
  const t = performance.now();
  const r = await c.callTool({name:'execute_code', arguments:{code}});
  console.log((performance.now()-t).toFixed(1), JSON.stringify(r).slice(0,400));
}
for (let i=0;i<5;i++){ const t=performance.now(); await c.callTool({name:'execute_code', arguments:{code:'return 1'}}); console.log((performance.now()-t).toFixed(2)); }
console.log(require_rss(child.pid));
function require_rss(pid){ return (await_import()).readFileSync(`/proc/${pid}/status`,'utf8').match(/VmRSS.*/)[0]; }
function await_import(){ return globalThis.__fs; }
