// Settings: the store, its topic and handlers; the log level follows it at once.
import type { NetworkProfile } from '../../shared/settings.ts';
import { SettingsStore } from '../engine/settings/settings-store.ts';
import type { Wiring } from './wiring.ts';

export function wireSettings(w: Wiring, network: NetworkProfile | undefined): SettingsStore {
  w.module('settings');
  const { paths, logs } = w.rt;
  const settings = new SettingsStore(paths.settings, logs.logger('settings'), network ? { network } : {});
  // Sent with the change, before settings.update answers: a shell reading the topic right after sees it.
  w.publishEach('settings', settings.get(), (l) => settings.onDidChange(l));
  logs.setMinLevel(settings.get().logLevel);
  w.add(settings.onDidChange((s) => logs.setMinLevel(s.logLevel)));
  w.handle({
    'settings.get': () => settings.get(),
    'settings.update': (patch) => settings.update(patch),
  });
  return settings;
}
