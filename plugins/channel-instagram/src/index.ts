export { default } from './instagram.plugin.js';
export { createInstagramDriver } from './instagram.driver.js';
export { instagramProfile } from './instagram.profile.js';
