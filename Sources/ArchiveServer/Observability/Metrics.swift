import PThreads

/// Request metrics shared by all event loops, rendered in the Prometheus text format (version 0.0.4).
///
/// Updated once per reply, on the loop thread that sends it; one mutex keeps the loops consistent.
/// The critical section is a few additions, so contention stays negligible next to HTTP parsing.
final class Metrics: @unchecked Sendable {
    /// Upper bounds of the latency histogram buckets, in seconds.
    static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var sum = 0.0
        var count: UInt64 = 0

        mutating func add(_ seconds: Double) {
            if let bucket = Metrics.latencyBuckets.firstIndex(where: { seconds <= $0 }) {
                counts[bucket] += 1
            }
            sum += seconds
            count += 1
        }
    }

    private struct RouteStatus: Hashable {
        var route: String
        var status: Int32
    }

    private let mutex = PThreadMutex()
    private var requests: [RouteStatus: UInt64] = [:]
    private var latency: [String: Histogram] = [:]
    private var rejections: [RejectionReason: UInt64] = [:]
    private var bytesIn: UInt64 = 0
    private var bytesOut: UInt64 = 0
    private var conversionsInFlight = 0
    /// Decodes answered with what could not be read marked `$broken`, and the marks.
    private var salvagedDecodes: UInt64 = 0
    private var salvagedBreaks: UInt64 = 0

    /// Point-in-time values read when rendering.
    struct Gauges {
        var pool: WorkerPool.Snapshot
        var inFlight: Int
        var limits: ConversionLimits
        var stackSize: Int
        var draining: Bool
        var memory: MemoryBudget.Snapshot
        var connections: Int
        var connectionLimit: Int
        var process: ProcessStatistics
        /// The labels of `archive_build_info`: the version and the libraries' versions.
        var build: [(name: String, value: String)]
    }

    /// Conversion requests handed to the pool and not yet answered.
    var inFlight: Int { mutex.withLock { conversionsInFlight } }

    func conversionQueued() {
        mutex.withLock { conversionsInFlight += 1 }
    }

    /// Counts one reply. `finishesConversion` is true for replies to requests counted by `conversionQueued()`.
    func record(
        route: String, status: Int32, seconds: Double, bytesIn: Int, bytesOut: Int,
        rejection: RejectionReason?, finishesConversion: Bool, salvagedBreaks: Int = 0
    ) {
        mutex.lock()
        defer { mutex.unlock() }
        if finishesConversion { conversionsInFlight -= 1 }
        requests[RouteStatus(route: route, status: status), default: 0] += 1
        // Counted in place: the route is looked up once and the histogram never copied.
        latency[route, default: Histogram()].add(seconds)
        if let rejection { rejections[rejection, default: 0] += 1 }
        if salvagedBreaks > 0 {
            salvagedDecodes += 1
            self.salvagedBreaks &+= UInt64(salvagedBreaks)
        }
        self.bytesIn &+= UInt64(bytesIn)
        self.bytesOut &+= UInt64(bytesOut)
    }

    /// Whole numbers without a fraction; Prometheus reads both, people read these more easily.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    func render(_ gauges: Gauges) -> String {
        let (requests, latency, rejections, bytesIn, bytesOut, salvagedDecodes, salvagedBreaks) = mutex.withLock {
            (self.requests, self.latency, self.rejections, self.bytesIn, self.bytesOut, self.salvagedDecodes, self.salvagedBreaks)
        }
        var out = ""
        out.reserveCapacity(4096)
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }

        header("archive_http_requests_total", "counter", "HTTP requests answered, by route and status code.")
        for key in requests.keys.sorted(by: { ($0.route, $0.status) < ($1.route, $1.status) }) {
            out += "archive_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(requests[key]!)\n"
        }

        header(
            "archive_http_request_duration_seconds", "histogram",
            "Time from the request being read to its reply being handed to the socket, by route.")
        for route in latency.keys.sorted() {
            let histogram = latency[route]!
            var cumulative: UInt64 = 0
            for (index, bound) in Self.latencyBuckets.enumerated() {
                cumulative += histogram.counts[index]
                out += "archive_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "archive_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
            out += "archive_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
            out += "archive_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)\n"
        }

        header(
            "archive_rejections_total", "counter",
            "Requests refused without conversion, by reason: too_deep, limit_exceeded and body_too_large are 413; queue_full, draining and connection_limit are 503; memory_budget is 503 (413 when it could never fit); bad_request is 400, 431 or 501; header_timeout and body_timeout are 408."
        )
        for reason in RejectionReason.allCases {
            out += "archive_rejections_total{reason=\"\(reason.rawValue)\"} \(rejections[reason] ?? 0)\n"
        }

        header("archive_salvaged_decodes_total", "counter", "Decodes answered 200 with what could not be read marked $broken (salvage=1; the Archive-Salvaged header).")
        out += "archive_salvaged_decodes_total \(salvagedDecodes)\n"
        header("archive_salvaged_breaks_total", "counter", "$broken marks in the salvaged decodes' replies.")
        out += "archive_salvaged_breaks_total \(salvagedBreaks)\n"

        header("archive_http_request_bytes_total", "counter", "Request body bytes received on the conversion endpoints.")
        out += "archive_http_request_bytes_total \(bytesIn)\n"
        header("archive_http_response_bytes_total", "counter", "Response body bytes sent.")
        out += "archive_http_response_bytes_total \(bytesOut)\n"

        header("archive_queue_depth", "gauge", "Conversion jobs waiting for a worker.")
        out += "archive_queue_depth \(gauges.pool.queued)\n"
        header("archive_queue_limit", "gauge", "Jobs that may wait before requests get 503.")
        out += "archive_queue_limit \(gauges.pool.queueLimit)\n"
        header("archive_workers_busy", "gauge", "Workers converting right now.")
        out += "archive_workers_busy \(gauges.pool.busy)\n"
        header("archive_workers", "gauge", "Worker threads in the pool.")
        out += "archive_workers \(gauges.pool.threads)\n"
        header("archive_requests_in_flight", "gauge", "Conversion requests accepted and not yet answered.")
        out += "archive_requests_in_flight \(gauges.inFlight)\n"
        header("archive_depth_limit", "gauge", "Deepest archive decode accepts, in JSON nesting levels of the readable view, derived from the worker stack size.")
        out += "archive_depth_limit \(gauges.limits.decode.depthLimit)\n"
        header("archive_worker_stack_bytes", "gauge", "Configured stack size of each worker thread.")
        out += "archive_worker_stack_bytes \(gauges.stackSize)\n"
        header("archive_memory_budget_bytes", "gauge", "Bytes that bodies, conversions and unsent replies may hold at once.")
        out += "archive_memory_budget_bytes \(gauges.memory.capacity)\n"
        header("archive_memory_reserved_bytes", "gauge", "Bytes of the memory budget reserved right now.")
        out += "archive_memory_reserved_bytes \(gauges.memory.reserved)\n"
        header("archive_memory_reserved_high_water_bytes", "gauge", "Most bytes of the memory budget ever reserved at once.")
        out += "archive_memory_reserved_high_water_bytes \(gauges.memory.highWater)\n"
        header("archive_connections", "gauge", "Client connections open.")
        out += "archive_connections \(gauges.connections)\n"
        header("archive_connection_limit", "gauge", "Client connections that may be open at once.")
        out += "archive_connection_limit \(gauges.connectionLimit)\n"
        header("archive_draining", "gauge", "1 while a graceful shutdown is in progress.")
        out += "archive_draining \(gauges.draining ? 1 : 0)\n"

        header("archive_build_info", "gauge", "Always 1; the labels name the service's version and the versions of the libraries it runs on.")
        out += "archive_build_info{\(gauges.build.map { "\($0.name)=\"\($0.value)\"" }.joined(separator: ","))} 1\n"

        let process = gauges.process
        header("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.")
        out += "process_cpu_seconds_total \(process.cpuSeconds)\n"
        let optional: [(String, String, Double?)] = [
            ("process_resident_memory_bytes", "Resident memory size in bytes.", process.residentBytes.map(Double.init)),
            ("process_virtual_memory_bytes", "Virtual memory size in bytes.", process.virtualBytes.map(Double.init)),
            ("process_open_fds", "Open file descriptors.", process.openDescriptors.map(Double.init)),
            ("process_max_fds", "Most file descriptors the process may open.", process.maximumDescriptors.map(Double.init)),
            ("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", process.startTime)
        ]
        for (name, help, value) in optional {
            guard let value else { continue }
            header(name, "gauge", help)
            out += "\(name) \(Self.number(value))\n"
        }
        return out
    }
}
