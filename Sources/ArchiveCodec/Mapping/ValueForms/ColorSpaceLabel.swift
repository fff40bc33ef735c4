/// The space an NSColor's components are in, as the `$space` label beside them in their
/// readable form (docs/mapping.md, "Readable bytes"): the decoder writes it from the colour's
/// other keys, the keyed encoder checks it against them. One rule for both sides.
///
/// - `NSRGB`, `NSWhite`, `NSCMYK` are in the space the colour's `NSColorSpace` number names,
///   when it names one of that model: 1 `calibratedRGB`, 2 `deviceRGB` (for `NSRGB`), 3
///   `calibratedWhite`, 4 `deviceWhite` (`NSWhite`), 5 `deviceCMYK` (`NSCMYK`): the names a
///   typedstream's NSColor uses for the same numbers. With an `NSCustomColorSpace` beside them
///   they are the fallback AppKit stores in that space.
/// - `NSComponents` are in the colour's `NSCustomColorSpace`: its label is the description its
///   `NSICC` profile gives itself (`ColorProfileSummary`), e.g. "sRGB IEC61966-2.1".
///
/// Nothing is guessed: a number of another model, a custom space without a profile or whose
/// profile has no description, gives no label. A description longer than `maximumLength`
/// bytes gives none either: the label is written beside every colour in that space, and a
/// colour costs an archive a few bytes, so a long one would let a small input write a large
/// view.
enum ColorSpaceLabel {
    /// The longest description written as a label, in UTF-8 bytes (real ones are under 50:
    /// "sRGB IEC61966-2.1", "Display P3", "Generic Gray Gamma 2.2 Profile").
    static let maximumLength = 128

    /// The colour keys whose components take a label, and what the label is read from.
    enum Key {
        case rgb, white, cmyk, components

        /// The archive's key.
        var name: StaticString {
            switch self {
            case .rgb: "NSRGB"
            case .white: "NSWhite"
            case .cmyk: "NSCMYK"
            case .components: "NSComponents"
            }
        }

        /// Every key, made once (an enum's `allCases` is a new array at each use), in the
        /// order of `BytesForm.Owner.color`'s keys.
        static let all: [Key] = [.rgb, .white, .cmyk, .components]
    }

    /// The colour's key that holds its space's number.
    static let modelKey: StaticString = "NSColorSpace"
    /// The colour's key that holds its own space (an NSColorSpace object).
    static let customSpaceKey: StaticString = "NSCustomColorSpace"
    /// The custom space's key that holds its ICC profile.
    static let profileKey: StaticString = "NSICC"

    /// The labels `NSColorSpace` numbers 1 … 5 give, in that order.
    static let modelLabels: [StaticString] = ["calibratedRGB", "deviceRGB", "calibratedWhite", "deviceWhite", "deviceCMYK"]

    /// A label as the decoder writes it.
    enum Text {
        case model(StaticString)
        case profile(String)

        var text: String {
            switch self {
            case .model(let name): name.description
            case .profile(let description): description
            }
        }
    }

    /// The index into `modelLabels` of the label of `key`'s components for the colour's
    /// `NSColorSpace` number `model`, for the model keys (`NSRGB`, `NSWhite`, `NSCMYK`); nil
    /// for another number or key.
    static func modelLabelIndex(_ key: Key, model: Int64) -> Int? {
        switch (key, model) {
        case (.rgb, 1), (.rgb, 2), (.white, 3), (.white, 4), (.cmyk, 5): Int(model - 1)
        default: nil
        }
    }

    /// The label `modelLabelIndex` names, as a label.
    static func modelLabel(_ key: Key, model: Int64) -> StaticString? {
        modelLabelIndex(key, model: model).map { modelLabels[$0] }
    }

    /// The label of components in the custom space whose profile is `bytes`: its description,
    /// when the bytes are an ICC profile (`acsp` at 36) with one of at most `maximumLength`
    /// bytes.
    static func profileLabel(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard DataKind.name(of: bytes) == .icc, let description = ColorProfileSummary.of(bytes)?.description,
            description.utf8.count <= maximumLength
        else { return nil }
        return description
    }
}
