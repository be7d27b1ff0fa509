import packageJson from '../package.json' with { type: 'json' };

export const SERVER_NAME = packageJson.name;
/** The one place the version lives is package.json; the manifest copies it when regenerated. */
export const SERVER_VERSION = packageJson.version;
