/**
 * The viewer's stylesheet. Span kinds and run statuses each have one colour, used by the waterfall,
 * the legend and the status pills alike.
 * @module
 */

/** CSS of the run viewer. */
export const VIEWER_CSS = String.raw`
:root { --bg: #f6f7f9; --panel: #fff; --line: #e3e6ea; --text: #1d232b; --muted: #6b7480; --accent: #4f46e5;
  --k-invoke_agent: #94a3b8; --k-step: #c7d2fe; --k-model_call: #8b5cf6; --k-tool_call: #10b981; --k-approval_wait: #f59e0b;
  --k-input_wait: #0ea5e9; --k-retry: #f97316; --k-error_event: #ef4444; --k-state_change: #64748b; }
* { box-sizing: border-box; }
body { font: 13px/1.45 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: var(--text); background: var(--bg);
  display: grid; grid-template-columns: 360px 1fr; grid-template-rows: 48px 1fr; height: 100vh; }
header.top { grid-column: 1 / 3; display: flex; align-items: center; gap: 12px; padding: 0 16px; background: #111827; color: #f9fafb; }
header.top b { font-size: 15px; letter-spacing: .2px; } header.top .sub { color: #9ca3af; }
#live { margin-left: auto; font-size: 12px; color: #9ca3af; display: flex; align-items: center; gap: 6px; }
#live::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: #6b7280; }
#live.on::before { background: #22c55e; box-shadow: 0 0 0 3px rgba(34,197,94,.25); }
aside { border-right: 1px solid var(--line); background: var(--panel); display: flex; flex-direction: column; min-height: 0; }
.filters { display: flex; gap: 8px; padding: 12px; border-bottom: 1px solid var(--line); }
.filters input, .filters select { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.filters input { flex: 1; min-width: 0; } .filters select { width: 128px; }
#run-list { overflow: auto; flex: 1; }
#run-list .empty { padding: 24px 16px; color: var(--muted); }
.run { padding: 10px 14px; border-bottom: 1px solid #f0f1f3; cursor: pointer; display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; }
.run:hover { background: #f8f9ff; } .run.selected { background: #eef0ff; box-shadow: inset 3px 0 0 var(--accent); }
.run .graph { font-weight: 600; } .run .when { color: var(--muted); font-size: 12px; text-align: right; }
.run .meta { grid-column: 1 / 3; color: var(--muted); font-size: 12px; display: flex; gap: 8px; align-items: center; }
.run .meta.id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 11px; color: #9ca3af; }
.run .user { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } .run .usage { margin-left: auto; white-space: nowrap; font-variant-numeric: tabular-nums; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: 11px; font-weight: 600; letter-spacing: .3px; background: #e5e7eb; color: #374151; }
.pill.SUCCEEDED { background: #dcfce7; color: #166534; } .pill.FAILED, .pill.EXPIRED { background: #fee2e2; color: #991b1b; }
.pill.CANCELED { background: #e5e7eb; color: #4b5563; } .pill.RUNNING, .pill.QUEUED, .pill.RETRYING { background: #dbeafe; color: #1e40af; }
.pill.WAITING_APPROVAL { background: #fef3c7; color: #92400e; } .pill.WAITING_INPUT { background: #e0f2fe; color: #075985; }
.pill.RUNNING::before { content: "● "; animation: blink 1s infinite; } @keyframes blink { 50% { opacity: .3; } }
main { overflow: auto; padding: 20px 24px 48px; min-width: 0; }
.placeholder { color: var(--muted); margin-top: 15vh; text-align: center; font-size: 15px; }
.tiles { display: flex; gap: 12px; justify-content: center; flex-wrap: wrap; margin-top: 16px; }
.tile { display: flex; flex-direction: column; align-items: center; gap: 6px; padding: 14px 18px; min-width: 120px; border-radius: 10px; }
.tile b { font-size: 24px; color: var(--text); } .tile:hover { border-color: var(--accent); }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; margin-bottom: 16px; min-width: 0; }
.card h3 { margin: 0 0 10px; font-size: 13px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); display: flex; gap: 8px; align-items: baseline; }
.card h3 small { text-transform: none; letter-spacing: 0; font-weight: 400; }
.head-card { display: flex; gap: 12px; align-items: flex-start; } #run-head { flex: 1; min-width: 0; display: flex; flex-wrap: wrap; align-items: center; gap: 10px 16px; }
#run-head h2 { margin: 0; font-size: 20px; } #run-head .id { font-family: ui-monospace, monospace; color: var(--muted); font-size: 12px; }
.stats { display: flex; gap: 22px; flex-wrap: wrap; margin-top: 10px; width: 100%; }
.stat { display: flex; flex-direction: column; } .stat b { font-size: 15px; } .stat span { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .5px; }
#run-error { border-color: #fecaca; background: #fef2f2; color: #7f1d1d; }
#run-error .code { font-family: ui-monospace, monospace; font-weight: 700; background: #fee2e2; padding: 1px 6px; border-radius: 4px; margin-right: 8px; }
#run-result { white-space: pre-wrap; }
.action { border: 1px solid #fcd34d; background: #fffbeb; border-radius: 10px; padding: 14px 16px; margin-bottom: 16px; }
.action.input-request { border-color: #7dd3fc; background: #f0f9ff; }
.action h4 { margin: 0 0 6px; font-size: 14px; } .action .why { color: var(--muted); font-size: 12px; margin-bottom: 8px; }
.action textarea { width: 100%; font: 12px/1.4 ui-monospace, monospace; border: 1px solid var(--line); border-radius: 6px; padding: 8px; min-height: 60px; resize: vertical; }
.action .buttons { display: flex; gap: 8px; margin-top: 10px; align-items: center; flex-wrap: wrap; }
.action .note { color: var(--muted); font-size: 12px; }
button { font: inherit; font-weight: 600; border-radius: 6px; padding: 6px 14px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
button.approve, button[type=submit] { background: #16a34a; border-color: #16a34a; color: #fff; } button.reject { color: #b91c1c; border-color: #fca5a5; }
button:disabled { opacity: .5; cursor: default; }
.form-error { color: #b91c1c; font-size: 12px; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: 16px; align-items: start; }
/* The conversation grows with the run: the page scrolls, never a box inside it that cuts messages off. */
#conversation, .messages { display: flex; flex-direction: column; gap: 8px; }
.msg { border-radius: 10px; padding: 8px 12px; max-width: 92%; white-space: pre-wrap; word-break: break-word; }
.msg .who { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); margin-bottom: 2px; }
.msg.human { background: #eef2ff; align-self: flex-end; } .msg.ai { background: #f3f4f6; }
.msg.tool { background: #ecfdf5; border: 1px solid #a7f3d0; font-size: 12px; } .msg.tool.error { background: #fef2f2; border-color: #fecaca; }
.msg.system { background: #fafafa; border: 1px dashed var(--line); color: var(--muted); }
.tool-call { display: block; margin-top: 6px; font: 12px ui-monospace, monospace; background: #fff; border: 1px solid var(--line); border-left: 3px solid var(--k-tool_call); border-radius: 6px; padding: 4px 8px; white-space: pre-wrap; }
details summary { cursor: pointer; color: #065f46; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; } .msg.tool.error summary { color: #991b1b; } details pre { margin: 6px 0 0; font-size: 11px; max-height: 240px; overflow: auto; }
.decision { align-self: center; font-size: 12px; border-radius: 999px; padding: 3px 12px; background: #fef3c7; color: #92400e; font-weight: 600; }
.decision.rejected { background: #fee2e2; color: #991b1b; } .decision.answer, .decision.question { background: #e0f2fe; color: #075985; }
#graph svg { max-width: 100%; height: auto; display: block; margin: 0 auto; }
/* Mermaid draws some shapes inside a nested group: match the shape at any depth, never the label text. */
#graph .node :is(rect, path, polygon) { fill: #f9fafb; stroke: #cbd5e1; }
#graph .visited :is(rect, path, polygon) { fill: #dcfce7 !important; stroke: #16a34a !important; stroke-width: 1.5px; }
#graph path.taken { stroke: #16a34a !important; stroke-width: 2px !important; }
#graph .active :is(rect, path, polygon) { fill: #fef3c7 !important; stroke: #d97706 !important; stroke-width: 3px !important; }
.legend { display: flex; gap: 12px; flex-wrap: wrap; font-size: 11px; color: var(--muted); }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
#timeline { display: flex; gap: 3px; flex-wrap: wrap; margin-bottom: 8px; }
#timeline .tick { border: 1px solid var(--line); background: #fff; border-radius: 5px; padding: 2px 7px; font-size: 11px; cursor: pointer; font-weight: 500; }
#timeline .tick.on { background: var(--accent); border-color: var(--accent); color: #fff; }
#state-meta { font-size: 12px; color: var(--muted); margin-bottom: 6px; }
#state-view[hidden] { display: none; }
#state-view { font: 11px/1.4 ui-monospace, monospace; background: #0f172a; color: #e2e8f0; border-radius: 8px; padding: 10px; max-height: 280px; overflow: auto; white-space: pre-wrap; word-break: break-word; margin: 0; }
/* The span column shrinks before the timeline does; tokens and cost give way first on a narrow card. */
#trace { container-type: inline-size; }
#trace .row { display: grid; grid-template-columns: minmax(110px, 250px) minmax(120px, 1fr) 64px 64px 70px; align-items: center; gap: 8px; height: 24px; font-size: 12px; cursor: pointer; }
#trace .row > * { min-width: 0; }
#trace .row.selected { background: #eef0ff; box-shadow: inset 3px 0 0 var(--accent); }
@container (max-width: 620px) { #trace .row { grid-template-columns: minmax(90px, 38%) minmax(100px, 1fr) 56px; } #trace .tokens, #trace .cost { display: none; } }
#trace .row:hover { background: #f8fafc; } #trace .row.head { cursor: default; color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .4px; height: 20px; }
#trace .label { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; display: flex; align-items: center; gap: 6px; }
#trace .kind { font-size: 10px; color: var(--muted); }
#trace .track { position: relative; height: 14px; background: #f3f4f6; border-radius: 3px; }
#trace .dur, #trace .tokens, #trace .cost { text-align: right; font-variant-numeric: tabular-nums; color: #374151; }
.bar { position: absolute; top: 0; height: 14px; min-width: 3px; border-radius: 3px; background: var(--k-step); }
.bar.kind-invoke_agent { background: var(--k-invoke_agent); opacity: .55; } .bar.kind-step { background: var(--k-step); }
.bar.kind-model_call { background: var(--k-model_call); } .bar.kind-tool_call { background: var(--k-tool_call); }
.bar.kind-retry { background: var(--k-retry); } .bar.kind-error_event { background: var(--k-error_event); }
.bar.kind-state_change { background: var(--k-state_change); width: 3px !important; }
.bar.kind-approval_wait { background: repeating-linear-gradient(135deg, var(--k-approval_wait) 0 5px, #fde68a 5px 10px); }
.bar.kind-input_wait { background: repeating-linear-gradient(135deg, var(--k-input_wait) 0 5px, #bae6fd 5px 10px); }
.bar.error { outline: 2px solid var(--k-error_event); } .bar.running { animation: blink 1.2s infinite; }
.gap { position: absolute; top: -3px; bottom: -3px; border-left: 1px dashed #d1d5db; border-right: 1px dashed #d1d5db; background: rgba(0,0,0,.02); }
.swatch { width: 8px; height: 8px; border-radius: 2px; flex: none; }
.muted { color: var(--muted); }
#error-banner { position: fixed; bottom: 16px; right: 16px; background: #7f1d1d; color: #fff; padding: 8px 14px; border-radius: 8px; display: none; max-width: 480px; }
#key-needed { position: fixed; inset: 0; background: rgba(17,24,39,.55); display: flex; align-items: center; justify-content: center; z-index: 10; }
#key-needed[hidden] { display: none; }
#key-needed .box { background: #fff; border-radius: 12px; padding: 24px 28px; width: 560px; box-shadow: 0 20px 50px rgba(0,0,0,.3); }
#key-needed h2 { margin: 0 0 8px; } #key-needed code { background: #f3f4f6; padding: 1px 5px; border-radius: 4px; }
#key-needed form { display: flex; gap: 8px; margin-top: 14px; } #key-needed input { flex: 1; font: inherit; padding: 7px 10px; border: 1px solid var(--line); border-radius: 6px; }
/* Narrow windows: the run list goes above the run, and the two-column cards stack. */
@media (max-width: 1000px) {
  body { grid-template-columns: 1fr; grid-template-rows: 48px auto 1fr; height: auto; min-height: 100vh; }
  header.top { grid-column: 1; }
  aside { border-right: 0; border-bottom: 1px solid var(--line); }
  #run-list { max-height: 180px; }
  main { padding: 14px 12px 40px; overflow: visible; }
  .grid2 { grid-template-columns: minmax(0, 1fr); }
}
#run-cancel { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; justify-content: flex-end; }
button.danger { color: #b91c1c; border-color: #fca5a5; } button.danger.sure { background: #dc2626; border-color: #dc2626; color: #fff; }
#span-detail { margin-top: 12px; border-top: 1px solid var(--line); padding-top: 12px; }
#span-detail h4 { margin: 0 0 8px; font-size: 14px; display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#span-detail h5 { margin: 12px 0 4px; font-size: 11px; text-transform: uppercase; letter-spacing: .5px; color: var(--muted); }
#span-detail pre, .state-other pre { font: 11px/1.4 ui-monospace, monospace; background: #f8fafc; border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 0; max-height: 320px; overflow: auto; white-space: pre-wrap; word-break: break-word; }
#span-detail .span-error { background: #fef2f2; border: 1px solid #fecaca; color: #7f1d1d; border-radius: 6px; padding: 6px 10px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 12px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
.close { margin-left: auto; font-weight: 400; padding: 2px 10px; }
#state-messages { margin-top: 8px; } #state-messages .msg { font-size: 12px; } #state-messages .note { color: var(--muted); font-size: 11px; }
.earlier summary { color: var(--muted); font-size: 12px; } .earlier .messages { margin: 6px 0; padding-left: 8px; border-left: 2px solid var(--line); }
.state-other { margin-top: 10px; display: flex; flex-direction: column; gap: 6px; } .state-other summary { color: var(--text); font-family: ui-monospace, monospace; font-size: 12px; }
.toggle { font-weight: 400; font-size: 11px; padding: 2px 8px; margin-top: 8px; }
#events { list-style: none; margin: 0; padding: 0; font-size: 12px; }
#events li { display: grid; grid-template-columns: 92px 1fr; gap: 2px 10px; padding: 5px 0; border-bottom: 1px solid #f0f1f3; }
#events li:last-child { border-bottom: 0; }
#events .at { color: var(--muted); font-variant-numeric: tabular-nums; } #events .who { color: var(--muted); }
#events .move { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; } #events .why { grid-column: 2; color: var(--muted); }
`;
