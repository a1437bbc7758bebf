import Foundation

/// Turns the top-level properties of an `Encodable` value into multipart parts, in the order
/// the value encodes them.
///
/// Text, numbers and `Bool` become fields; `Date`, `UUID` and `URL` become fields with their
/// ``ParameterRepresentable`` text; `Data` becomes a file named after the property and
/// ``MultipartForm/File`` a file with its own name and type; arrays repeat the field; `nil` is
/// left out. Anything else (a nested object) is refused with
/// ``MultipartFormEncoder/Failure/unsupportedValue(name:)``.
enum MultipartPartsEncoder {
    static func parts<T: Encodable>(of value: T) throws -> [MultipartForm.Part] {
        let sink = PartSink()
        try value.encode(to: TopEncoder(sink: sink))
        return sink.parts
    }

    /// Collects the parts during one synchronous `encode(to:)` call; never shared across threads.
    final class PartSink {
        var parts: [MultipartForm.Part] = []

        func add(_ value: some Encodable, name: String) throws {
            switch value {
            case let file as MultipartForm.File:
                parts.append(.file(name: name, filename: file.filename, contentType: file.contentType, data: file.data))
            case let data as Data:
                parts.append(.file(name: name, filename: name, data: data))
            case let text as any ParameterRepresentable:
                for item in text.parameterValues {
                    parts.append(.field(name: name, value: item))
                }
            default:
                // Arrays of files or of other values encode through an unkeyed container.
                try value.encode(to: FieldEncoder(sink: self, name: name))
            }
        }

        /// One element of an array property, or a single-value property: only values that make
        /// one part each are accepted (a nested object has no multipart form).
        func addElement(_ value: some Encodable, name: String?) throws {
            guard let name else { throw MultipartFormEncoder.Failure.unsupportedValue(name: "(top level)") }
            guard value is any ParameterRepresentable || value is Data || value is MultipartForm.File else {
                throw MultipartFormEncoder.Failure.unsupportedValue(name: name)
            }
            try add(value, name: name)
        }
    }

    struct TopEncoder: Encoder {
        let sink: PartSink
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed(sink: sink))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(sink: sink, name: nil)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(sink: sink, name: nil)
        }
    }

    /// The encoder a property's value sees when it is not a plain value, such as an array.
    struct FieldEncoder: Encoder {
        let sink: PartSink
        let name: String
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed(sink: sink, nestedIn: name))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(sink: sink, name: name)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(sink: sink, name: name)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: PartSink
        /// Set when this container belongs to a property's value: nested objects are refused.
        var nestedIn: String?
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) throws {}

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if let nestedIn { throw MultipartFormEncoder.Failure.unsupportedValue(name: nestedIn) }
            try sink.add(value, name: key.stringValue)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, nestedIn: nestedIn ?? key.stringValue))
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(sink: sink, name: key.stringValue)
        }

        func superEncoder() -> any Encoder { FieldEncoder(sink: sink, name: "super") }

        func superEncoder(forKey key: Key) -> any Encoder { FieldEncoder(sink: sink, name: key.stringValue) }
    }

    /// An array property: each element is one more part with the property's name.
    struct Unkeyed: UnkeyedEncodingContainer {
        let sink: PartSink
        let name: String?
        var codingPath: [any CodingKey] { [] }
        var count: Int { 0 }

        func encodeNil() throws {}

        func encode<T: Encodable>(_ value: T) throws { try sink.addElement(value, name: name) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, nestedIn: name ?? "(top level)"))
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }

        func superEncoder() -> any Encoder { FieldEncoder(sink: sink, name: name ?? "(top level)") }
    }

    /// A property whose value encodes itself as a single value (a `RawRepresentable` enum, a wrapper).
    struct Single: SingleValueEncodingContainer {
        let sink: PartSink
        let name: String?
        var codingPath: [any CodingKey] { [] }

        func encodeNil() throws {}

        func encode<T: Encodable>(_ value: T) throws { try sink.addElement(value, name: name) }
    }
}
