export { default } from './plugin.js';
export { createTelegramDriver, type TelegramDriverOptions } from './driver.js';
export type { TelegramPluginOptions } from './plugin.js';
