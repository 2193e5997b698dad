export { MockBotApi, type BotApiCall, type MockUser } from './mock-bot-api.js';
