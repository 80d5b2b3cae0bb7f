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
