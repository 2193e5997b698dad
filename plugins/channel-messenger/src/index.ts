export { default } from './messenger.plugin.js';
export { createMessengerDriver } from './messenger.driver.js';
export { messengerProfile } from './messenger.profile.js';
