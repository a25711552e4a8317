// jest-light-runner, refusing the one run it would get wrong: in band (`--runInBand`, `--maxWorkers=1`) it runs in
// jest's own thread, where the first project's setup (its setup files, the environment they change) stays for every
// other project's files, silently: the e2e files would run without the contract check, the embedded tier's on the
// server. In band, one project at a time (`--selectProjects e2e`); otherwise two workers or more.
import LightRunner from 'jest-light-runner';

export default class LightRunnerOneProjectInBand extends LightRunner {
  #inBand;

  constructor(globalConfig, context, configuration) {
    super(globalConfig, context, configuration);
    this.#inBand = globalConfig.maxWorkers === 1;
  }

  async runTests(tests, watcher, onStart, onResult, onFailure) {
    const projects = new Set(tests.map((test) => test.context.config));
    if (this.#inBand && projects.size > 1)
      throw new Error(
        "In band (--runInBand, --maxWorkers=1) the light runner keeps one project's setup for all: run one project (--selectProjects) or use --maxWorkers=2.",
      );
    return super.runTests(tests, watcher, onStart, onResult, onFailure);
  }
}
