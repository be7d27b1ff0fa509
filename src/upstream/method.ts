/** The methods of the workspace API: a tool definition names one, the HTTP core sends it. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
