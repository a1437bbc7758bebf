@_exported import Endpoints
