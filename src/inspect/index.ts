export { callByHand, parseRequestBody } from './call-by-hand.js';
export { type ChatWindow, resolveChatWindow } from './chat-window.js';
export {
  CHAT_PAGE_SIZE,
  CHAT_WINDOW_SECONDS,
  type ChatQuery,
  type ChatSink,
  exportChats,
} from './export-chats.js';
export { createGuideQrcode, pathMenuRequest, sendPathMenu } from './guide-actions.js';
export { parseCustomer, parseGuideName } from './guide-name.js';
export { listTasks, type TaskQuery } from './list-tasks.js';
export { type OutputFile, openOutputFile, streamOutput, type TextStream } from './output-file.js';
