import { describeMetaPluginManifest } from '@parley/meta-graph/testing';
import plugin from '../src/index.js';

describeMetaPluginManifest(plugin, '@parley/channel-messenger', 'messenger');
