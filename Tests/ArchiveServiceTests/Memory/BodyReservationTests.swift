import HTTPCore
import XCTest

@testable import ArchiveServer

/// Bodies are admitted against the memory budget by their head and reserved only as their bytes
/// arrive, a step ahead: a head that announces a large body and sends nothing holds nothing.
final class BodyReservationTests: XCTestCase {
    private func head(_ text: String) throws -> RequestHead {
        let bytes = Array(text.utf8)
        let result: Result<RequestHead, RequestHead.Refusal> = bytes.withUnsafeBytes { buffer in
            do throws(RequestHead.Refusal) { return .success(try RequestHead.parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    func testAHeadAloneHoldsNothingAndBytesAreReservedAStepAhead() throws {
        let budget = MemoryBudget(capacity: 16 << 20)
        let decode = try head("POST /v1/decode HTTP/1.1\r\nContent-Length: \(7 << 19)\r\n\r\n")
        var admission = BodyReservation(budget: budget)
        XCTAssertNil(admission.begin(decode, announced: 7 << 19))
        XCTAssertEqual(budget.snapshot.reserved, 0, "a head alone holds nothing")
        // A decode needs four bytes per body byte: the first byte reserves the next step's need.
        XCTAssertNil(admission.received(1, upTo: 7 << 19, of: decode))
        XCTAssertEqual(budget.snapshot.reserved, (1 + BodyReservation.admissionStep) * ConversionCost.decodePerBodyByte)
        // Within what is reserved, nothing more is taken.
        XCTAssertNil(admission.received(1_000, upTo: 7 << 19, of: decode))
        XCTAssertEqual(budget.snapshot.reserved, (1 + BodyReservation.admissionStep) * ConversionCost.decodePerBodyByte)
        // Never past what the whole body needs.
        XCTAssertNil(admission.received(3 << 20, upTo: 7 << 19, of: decode))
        XCTAssertEqual(budget.snapshot.reserved, (7 << 19) * ConversionCost.decodePerBodyByte)
        var taken = admission.takeOver()
        XCTAssertEqual((taken as? Reservation)?.bytes, (7 << 19) * ConversionCost.decodePerBodyByte)
        XCTAssertNil(admission.takeOver(), "the handler holds it now")
        taken = nil
        XCTAssertEqual(budget.snapshot.reserved, 0)
    }

    func testBodiesThatDoNotFitAreRefused() throws {
        let budget = MemoryBudget(capacity: 16 << 20)
        let decode = try head("POST /v1/decode HTTP/1.1\r\nContent-Length: \(3 << 20)\r\n\r\n")
        var holder = budget.reserve(10 << 20)
        var admission = BodyReservation(budget: budget)
        XCTAssertEqual(admission.begin(decode, announced: 3 << 20)?.problem?.status, 503, "others hold the budget")
        XCTAssertEqual(admission.begin(decode, announced: 5 << 20)?.problem?.status, 413, "it would not fit even alone")
        XCTAssertNotNil(holder)
        holder = nil

        var chunked = BodyReservation(budget: budget)
        let chunkedHead = try head("POST /v1/decode HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        XCTAssertNil(chunked.begin(chunkedHead, announced: 0))
        XCTAssertNil(chunked.chunksAnnounced(4 << 20, of: chunkedHead))
        XCTAssertEqual(chunked.chunksAnnounced(5 << 20, of: chunkedHead)?.problem?.status, 413)
        XCTAssertNil(chunked.received(1 << 20, upTo: 4 << 20, of: chunkedHead))
        XCTAssertGreaterThan(budget.snapshot.reserved, 0)
        chunked.release()
        XCTAssertEqual(budget.snapshot.reserved, 0)
    }
}

extension AdmissionDenial {
    /// The problem document the denial carries.
    fileprivate var problem: Problem? { reason as? Problem }
}
