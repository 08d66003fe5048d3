// Tool discovery at scale: 1,000 generated tools (50 entities x 20 verbs), 200 labelled natural-language
// requests from a seeded generator. Reports recall@5/@10 of ToolIndex and the tool-schema prompt tokens
// per turn when binding the top 5 versus binding every tool (JSON of the definitions, ~4 chars/token).
import { z } from "zod";
import { defineTool, type AgentTool, type ToolRisk } from "../src/index.js";
import { ToolIndex, ToolRegistry } from "../src/entrypoints/tools.js";

const SEED = 8;
const QUERIES = 200;

/** mulberry32: a tiny seeded PRNG so every run asks the same questions. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Entity { name: string; plural: string; alias: string; domain: string }
const E = (name: string, alias: string, domain: string, plural = `${name}s`): Entity => ({ name, plural, alias, domain });
const ENTITIES: Entity[] = [
  E("order", "purchase", "sales"), E("customer", "client", "crm"), E("invoice", "bill", "billing"), E("payment", "charge", "billing"),
  E("refund", "reimbursement", "billing"), E("shipment", "parcel", "logistics"), E("product", "sku", "catalog"), E("supplier", "manufacturer", "procurement"),
  E("warehouse", "depot", "logistics"), E("ticket", "case", "support"), E("user", "account", "identity"), E("team", "squad", "identity"),
  E("project", "initiative", "work"), E("task", "todo", "work"), E("deployment", "rollout", "ops"), E("service", "microservice", "ops"),
  E("incident", "outage", "ops"), E("alert", "alarm", "ops"), E("contract", "agreement", "legal"), E("lead", "prospect", "crm"),
  E("opportunity", "deal", "crm"), E("campaign", "promotion", "marketing"), E("coupon", "voucher", "marketing"), E("subscription", "membership", "billing"),
  E("plan", "tier", "billing"), E("employee", "staff member", "hr"), E("timesheet", "hours log", "hr"), E("expense", "reimbursable cost", "finance"),
  E("budget", "allocation", "finance"), E("report", "analysis", "analytics"), E("dashboard", "board", "analytics"), E("document", "file", "content"),
  E("folder", "directory", "content"), E("meeting", "call", "calendar"), E("reservation", "booking", "calendar"), E("repository", "repo", "dev", "repositories"),
  E("pull_request", "merge request", "dev"), E("build", "ci job", "dev"), E("release", "version", "dev"), E("vendor", "reseller", "procurement"),
  E("asset", "equipment", "it"), E("license", "seat", "it"), E("device", "laptop", "it"), E("location", "office", "facilities"),
  E("review", "rating", "catalog"), E("article", "kb page", "content"), E("survey", "questionnaire", "marketing"), E("webhook", "callback url", "dev"),
  E("api_key", "access token", "identity"), E("shift", "rota slot", "hr"),
];

interface Verb { name: string; risk: ToolRisk; desc: (e: Entity) => string; asks: ((e: string, id: string) => string)[]; schema: z.ZodType }
const idOnly = z.object({ id: z.string().describe("Identifier of the record") });
const withBody = z.object({ id: z.string().optional().describe("Identifier of the record"), fields: z.record(z.string(), z.string()).describe("Field values to set") });
const filter = z.object({ query: z.string().optional().describe("Free-text keywords"), status: z.string().optional().describe("Status to filter by"), from: z.string().optional().describe("ISO start date"), to: z.string().optional().describe("ISO end date"), limit: z.number().int().max(100).optional().describe("Most results to return") });
const V = (name: string, risk: ToolRisk, schema: z.ZodType, desc: Verb["desc"], ...asks: Verb["asks"]): Verb => ({ name, risk, schema, desc, asks });
const VERBS: Verb[] = [
  V("search", "read", filter, (e) => `Search ${e.plural} (${e.alias}s) by keywords, status or date range; find matching records.`, (e) => `find every ${e} mentioning late delivery`, (e) => `search ${e}s that match "priority" from last month`),
  V("get", "read", idOnly, (e) => `Get the full details of one ${e.name} (${e.alias}) by its id: show, open or look up a single record.`, (e, id) => `show me the details of ${e} ${id}`, (e, id) => `look up ${e} ${id} for me`),
  V("list", "read", filter, (e) => `List recent ${e.plural} (${e.alias}s), newest first, with paging: browse all records.`, (e) => `list the most recent ${e}s`, (e) => `browse all ${e}s page by page`),
  V("create", "write", withBody, (e) => `Create a new ${e.name} (${e.alias}) with the given fields: add, open or register one.`, (e) => `create a new ${e} for Hengtai Trading`, (e) => `please add a ${e} with these fields`),
  V("update", "write", withBody, (e) => `Update fields of an existing ${e.name} (${e.alias}): edit, change or modify it.`, (e, id) => `change the owner field of ${e} ${id}`, (e, id) => `edit ${e} ${id} and modify its notes`),
  V("delete", "destructive", idOnly, (e) => `Delete a ${e.name} (${e.alias}) permanently: remove or erase it.`, (e, id) => `permanently delete ${e} ${id}`, (e, id) => `remove ${e} ${id}, erase it`),
  V("archive", "write", idOnly, (e) => `Archive a ${e.name} (${e.alias}) so it is hidden but kept: shelve or retire it.`, (e, id) => `archive ${e} ${id}, we no longer need it visible`, (e, id) => `retire and shelve ${e} ${id}`),
  V("restore", "write", idOnly, (e) => `Restore an archived or deleted ${e.name} (${e.alias}): undelete, unarchive or bring back.`, (e, id) => `bring back the archived ${e} ${id}`, (e, id) => `undelete ${e} ${id}`),
  V("export", "read", filter, (e) => `Export ${e.plural} (${e.alias}s) to CSV or JSON: download a spreadsheet of records.`, (e) => `export all ${e}s to a CSV spreadsheet`, (e) => `download ${e}s as JSON`),
  V("import", "write", z.object({ url: z.string().describe("CSV or JSON file to load") }), (e) => `Import ${e.plural} (${e.alias}s) from a CSV or JSON file: bulk upload or load records.`, (e) => `import ${e}s from this uploaded file`, (e) => `bulk upload ${e}s`),
  V("count", "read", filter, (e) => `Count ${e.plural} (${e.alias}s) matching a filter: how many records, totals and numbers.`, (e) => `how many ${e}s do we have this quarter?`, (e) => `count the open ${e}s, total number`),
  V("assign", "write", z.object({ id: z.string(), assignee: z.string().describe("User who becomes the owner") }), (e) => `Assign a ${e.name} (${e.alias}) to a user or owner: reassign or hand over.`, (e, id) => `assign ${e} ${id} to Dana`, (e, id) => `hand ${e} ${id} over to a new owner`),
  V("comment", "write", z.object({ id: z.string(), text: z.string().describe("Comment text") }), (e) => `Add a comment or note to a ${e.name} (${e.alias}): annotate or remark.`, (e, id) => `leave a note on ${e} ${id} saying it is blocked`, (e, id) => `add a comment to ${e} ${id}`),
  V("approve", "write", idOnly, (e) => `Approve a pending ${e.name} (${e.alias}): accept, sign off or greenlight it.`, (e, id) => `sign off on ${e} ${id}`, (e, id) => `approve the pending ${e} ${id}`),
  V("reject", "write", z.object({ id: z.string(), reason: z.string().describe("Why it is rejected") }), (e) => `Reject a pending ${e.name} (${e.alias}) with a reason: decline or turn down.`, (e, id) => `decline ${e} ${id}, the numbers are wrong`, (e, id) => `reject ${e} ${id}`),
  V("tag", "write", z.object({ id: z.string(), labels: z.array(z.string()).describe("Labels to add") }), (e) => `Tag a ${e.name} (${e.alias}) with labels: label or categorize it.`, (e, id) => `label ${e} ${id} as urgent`, (e, id) => `categorize ${e} ${id} with the tag vip`),
  V("merge", "write", z.object({ id: z.string(), into: z.string().describe("Record that absorbs it") }), (e) => `Merge two duplicate ${e.plural} (${e.alias}s) into one: combine or deduplicate.`, (e) => `merge these two duplicate ${e}s`, (e) => `combine the duplicated ${e}s into one`),
  V("clone", "write", idOnly, (e) => `Clone a ${e.name} (${e.alias}) into a new copy: duplicate or copy it.`, (e, id) => `make a copy of ${e} ${id}`, (e, id) => `clone ${e} ${id}`),
  V("notify", "write", z.object({ id: z.string(), message: z.string() }), (e) => `Notify the watchers of a ${e.name} (${e.alias}) by email or chat: send an alert or message.`, (e, id) => `email the watchers of ${e} ${id}`, (e, id) => `send a message to everyone following ${e} ${id}`),
  V("history", "read", idOnly, (e) => `Show the change history and audit log of a ${e.name} (${e.alias}): who changed what and when.`, (e, id) => `who changed ${e} ${id} and when?`, (e, id) => `show the audit log of ${e} ${id}`),
];

const toolName = (v: Verb, e: Entity) => `${v.name}_${e.name}`;
const tools: AgentTool[] = ENTITIES.flatMap((e) => VERBS.map((v) => defineTool({
  name: toolName(v, e), description: v.desc(e), risk: v.risk, schema: v.schema, tags: [e.domain, e.name, v.name], execute: () => null,
})));

/** 200 requests, each labelled with the one tool that serves it; half name the entity by its alias. */
function queries(): { text: string; tool: string }[] {
  const rand = prng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: QUERIES }, () => {
    const e = pick(ENTITIES);
    const v = pick(VERBS);
    const word = rand() < 0.5 ? e.name.replace(/_/g, " ") : e.alias;
    return { text: pick(v.asks)(word, `#${1000 + Math.floor(rand() * 9000)}`), tool: toolName(v, e) };
  });
}

const tokens = (defs: unknown) => Math.ceil(JSON.stringify(defs).length / 4);

const registry = ToolRegistry.create(tools);
const index = ToolIndex.create(tools);
const labelled = queries();
let hit5 = 0;
let hit10 = 0;
let boundTokens = 0;
for (const q of labelled) {
  const top = index.select(q.text, { max: 10 }).map((t) => t.name);
  if (top.slice(0, 5).includes(q.tool)) hit5++;
  if (top.includes(q.tool)) hit10++;
  boundTokens += tokens(registry.definitions(top.slice(0, 5)));
}
const allTokens = tokens(registry.definitions());
const round = (x: number, d = 4) => Number(x.toFixed(d));
const perTurn = boundTokens / labelled.length;
process.stdout.write(`tools ${tools.length}, queries ${labelled.length} (seed ${SEED})\n`);
process.stdout.write(`schema tokens per turn: all tools ${allTokens}, top-5 ${Math.round(perTurn)}\n`);
process.stdout.write(`${JSON.stringify({ recall_at_5: round(hit5 / labelled.length, 3), recall_at_10: round(hit10 / labelled.length, 3), schema_tokens_ratio: round(perTurn / allTokens) })}\n`);
