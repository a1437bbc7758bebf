import Foundation

/// Turns the properties of an `Encodable` value into multipart parts, in the order the value
/// encodes them, with Endpoints 0.4's field names.
///
/// Text, numbers and `Bool` become fields; `Date`, `UUID`, `URL` and `TimeZone` become fields with
/// their ``ParameterRepresentable`` text; `Data` becomes a file named after the property,
/// ``MultipartForm/File`` a file with its own name and type, ``MultipartFormJSON`` a JSON part;
/// `nil` is left out. A nested object's properties are named `outer[inner]`, and array elements
/// `list[0]`, `list[1]` (or `list`, `list` with ``MultipartFormEncoder/ArrayEncoding/repeatedName``).
enum MultipartPartsEncoder {
    static func parts<T: Encodable>(of value: T, arrays: MultipartFormEncoder.ArrayEncoding) throws
        -> [MultipartForm.Part]
    {
        let sink = PartSink(arrays: arrays)
        try value.encode(to: FieldEncoder(sink: sink, name: nil))
        return sink.parts
    }

    /// Collects the parts during one synchronous `encode(to:)` call; never shared across threads.
    final class PartSink {
        var parts: [MultipartForm.Part] = []
        let arrays: MultipartFormEncoder.ArrayEncoding

        init(arrays: MultipartFormEncoder.ArrayEncoding) { self.arrays = arrays }

        /// Adds `value` under `name`: one part for a plain value, file or JSON part, several for
        /// an object or an array. `name` is `nil` only for the body itself, which must be an object.
        func add(_ value: some Encodable, name: String?) throws {
            switch value {
            case let part as any MultipartPartValue:
                parts.append(try part.multipartPart(name: try required(name)))
            case let data as Data:
                let name = try required(name)
                parts.append(.file(name: name, filename: name, data: data))
            case let text as any ParameterRepresentable where !(value is any MultipartSequence):
                if let item = text.parameterValue {
                    parts.append(.field(name: try required(name), value: item))
                }
            default:
                try value.encode(to: FieldEncoder(sink: self, name: name))
            }
        }

        func required(_ name: String?) throws -> String {
            guard let name else { throw MultipartFormEncoder.Failure.unsupportedValue(name: "(top level)") }
            return name
        }

        /// The name of `key` inside `parent`: `key` at the top, `parent[key]` below it.
        static func name(_ key: String, in parent: String?) -> String {
            parent.map { "\($0)[\(key)]" } ?? key
        }

        /// The name of the array element at `index` inside `parent`.
        func elementName(_ index: Int, in parent: String?) throws -> String {
            let parent = try required(parent)
            switch arrays {
            case .indexed: return "\(parent)[\(index)]"
            case .repeatedName: return parent
            }
        }
    }

    /// The encoder a value sees; `name` is the field name its contents go under.
    struct FieldEncoder: Encoder {
        let sink: PartSink
        let name: String?
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed(sink: sink, name: name))
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
        let name: String?
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) throws {}

        func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try sink.add(value, name: PartSink.name(key.stringValue, in: name))
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, name: PartSink.name(key.stringValue, in: name)))
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(sink: sink, name: PartSink.name(key.stringValue, in: name))
        }

        func superEncoder() -> any Encoder { FieldEncoder(sink: sink, name: PartSink.name("super", in: name)) }

        func superEncoder(forKey key: Key) -> any Encoder {
            FieldEncoder(sink: sink, name: PartSink.name(key.stringValue, in: name))
        }
    }

    /// An array: each element goes under `name[index]` (or `name`).
    struct Unkeyed: UnkeyedEncodingContainer {
        let sink: PartSink
        let name: String?
        var codingPath: [any CodingKey] { [] }
        var count = 0

        init(sink: PartSink, name: String?) {
            self.sink = sink
            self.name = name
        }

        mutating func encodeNil() throws { count += 1 }

        mutating func encode<T: Encodable>(_ value: T) throws {
            defer { count += 1 }
            try sink.add(value, name: try sink.elementName(count, in: name))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            defer { count += 1 }
            return KeyedEncodingContainer(Keyed<NestedKey>(sink: sink, name: elementName()))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            defer { count += 1 }
            return Unkeyed(sink: sink, name: elementName())
        }

        mutating func superEncoder() -> any Encoder {
            defer { count += 1 }
            return FieldEncoder(sink: sink, name: elementName())
        }

        /// Containers cannot throw: an element of an array body has no name, and that is
        /// reported when one of its values is added.
        private func elementName() -> String? {
            try? sink.elementName(count, in: name)
        }
    }

    /// A value that encodes itself as a single value (a `RawRepresentable` enum, a wrapper).
    struct Single: SingleValueEncodingContainer {
        let sink: PartSink
        let name: String?
        var codingPath: [any CodingKey] { [] }

        func encodeNil() throws {}

        func encode<T: Encodable>(_ value: T) throws { try sink.add(value, name: name) }
    }
}

/// A value that is one multipart part of its own (a file, a JSON part).
protocol MultipartPartValue {
    func multipartPart(name: String) throws -> MultipartForm.Part
}

/// Arrays, which the encoder writes element by element rather than as one value.
protocol MultipartSequence {}

extension Array: MultipartSequence {}

extension MultipartForm.File: MultipartPartValue {
    func multipartPart(name: String) throws -> MultipartForm.Part {
        .file(name: name, filename: filename, contentType: mediaType, data: content)
    }
}
