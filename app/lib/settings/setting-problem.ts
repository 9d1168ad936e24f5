/** A setting that could not be used as given: /healthz and the console name its variable, never its value. */
export interface SettingProblem {
  /** The environment variable at fault. */
  variable: string;
  message: string;
}
