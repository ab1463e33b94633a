// Shared test data for the pre-flight tests: a hotkey address and a runtime report with sglang found.
import type { RuntimeReport } from '../../../shared/serve.ts';

export const ADDR = '5F3sa2TJAWMqDhXG6jhV4N8ko9SxwGy8TpaNS1repo5EYjQX';

export const RUNTIMES: RuntimeReport = {
  python: { python: '/usr/bin/python3', pythonVersion: '3.12', sglangVersion: '0.5.12.post1', supported: true, problem: null },
  pythonTried: [],
  docker: { docker: 'docker', available: false, serverVersion: null, nvidiaRuntime: null, image: 'img', imagePresent: false, problem: 'Docker is not installed.' },
  recommended: 'python',
  notes: [],
};
