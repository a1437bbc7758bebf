// EndpointsMocking re-exports Endpoints, so a test target needs only `import EndpointsMocking`
// (importing both, as the README does, works too).
@_exported import Endpoints
