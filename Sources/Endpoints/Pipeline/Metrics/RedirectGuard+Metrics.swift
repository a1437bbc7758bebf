import Foundation

#if !canImport(FoundationNetworking)
    extension RedirectGuard {
        /// Apple platforms: what the system measured about each hop of the task (connection reuse,
        /// DNS, connect, TLS), handed to the request's recorder. Linux's URLSession never calls this
        /// (swift-corelibs-foundation #4988), so there ``RequestMetrics/Attempt/connection`` is `nil`.
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics
        ) {
            guard let recorder else { return }
            let connections = metrics.transactionMetrics
                .filter { $0.resourceFetchType == .networkLoad }
                .map(RequestMetrics.ConnectionMetrics.init)
            recorder.connections(connections)
        }
    }

    extension RequestMetrics.ConnectionMetrics {
        /// What one transaction of `URLSessionTaskMetrics` tells.
        init(_ transaction: URLSessionTaskTransactionMetrics) {
            func span(_ start: Date?, _ end: Date?) -> TimeInterval? {
                guard let start, let end else { return nil }
                return end.timeIntervalSince(start)
            }
            let address = transaction.remoteAddress.map { address in
                let host = address.contains(":") ? "[\(address)]" : address
                return transaction.remotePort.map { "\(host):\($0)" } ?? host
            }
            self.init(
                reusedConnection: transaction.isReusedConnection,
                domainLookup: span(transaction.domainLookupStartDate, transaction.domainLookupEndDate),
                connect: span(transaction.connectStartDate, transaction.connectEndDate),
                secureConnection: span(transaction.secureConnectionStartDate, transaction.secureConnectionEndDate),
                networkProtocol: transaction.networkProtocolName,
                firstByte: span(transaction.fetchStartDate, transaction.responseStartDate),
                total: span(transaction.fetchStartDate, transaction.responseEndDate),
                bytesSent: transaction.countOfRequestHeaderBytesSent + transaction.countOfRequestBodyBytesSent,
                bytesReceived: transaction.countOfResponseHeaderBytesReceived
                    + transaction.countOfResponseBodyBytesReceived,
                remoteAddress: address,
                receivingBody: span(transaction.responseStartDate, transaction.responseEndDate)
            )
        }
    }
#endif
