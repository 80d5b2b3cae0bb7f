export {
  type ApplyEvent,
  type ApplyResult,
  type CallOutcome,
  type CallStatus,
  type ExecuteOptions,
  executePlan,
  fillBody,
  type PlanWriter,
} from './execute-plan.js';
export { type RunCallsOptions, runCalls, type Stopper, writeAwareStopper } from './run-calls.js';
