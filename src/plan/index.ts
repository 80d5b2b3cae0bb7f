export { type PlanResult, planChanges } from './plan-changes.js';
export { sameWelcome, sameWelcomeList, welcomeToJson, welcomeToWire } from './welcome.js';
