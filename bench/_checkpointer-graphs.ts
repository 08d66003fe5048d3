// End-to-end benchmarks: a 3-node StateGraph and a 10-way Send fan-out, invoked on distinct threads.
import { Annotation, END, START, Send, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";

const State = Annotation.Root({
  input: Annotation<string>(),
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

/** One invocation of a 3-node chain (plan → act → answer) on thread `label-i`. */
export function threeNodeGraph(checkpointer: BaseCheckpointSaver | undefined, label: string): (i: number) => Promise<void> {
  const graph = new StateGraph(State)
    .addNode("plan", (s) => ({ steps: [`plan ${s.input}`] }))
    .addNode("act", (s) => ({ steps: [`act on ${s.steps.length}`] }))
    .addNode("answer", (s) => ({ steps: [`answer after ${s.steps.length}`] }))
    .addEdge(START, "plan")
    .addEdge("plan", "act")
    .addEdge("act", "answer")
    .addEdge("answer", END)
    .compile(checkpointer === undefined ? {} : { checkpointer });
  return async (i) => {
    const out = await graph.invoke({ input: `q${i}` }, { configurable: { thread_id: `${label}-chain-${i}` } });
    if (out.steps.length !== 3) throw new Error("3-node graph did not run 3 nodes");
  };
}

/** One invocation of a node fanned out to 10 `Send`s on thread `label-i`. */
export function fanOutGraph(checkpointer: BaseCheckpointSaver | undefined, label: string): (i: number) => Promise<void> {
  const graph = new StateGraph(State)
    .addNode("worker", (s: { input: string }) => ({ results: [Number(s.input)] }))
    .addConditionalEdges(START, () => Array.from({ length: 10 }, (_, i) => new Send("worker", { input: String(i) })))
    .addEdge("worker", END)
    .compile(checkpointer === undefined ? {} : { checkpointer });
  return async (i) => {
    const out = await graph.invoke({ input: "go" }, { configurable: { thread_id: `${label}-fan-${i}` } });
    if (out.results.length !== 10) throw new Error("fan-out did not run 10 workers");
  };
}
