// The two result builders of earlier builds of this release, now one generic ``ContentBuilder``
// that serves definitions and ad-hoc requests alike. Kept so that code naming them (a helper
// marked `@DefinitionBuilder<T>` or `@RequestContentBuilder`) still compiles, with a warning.

@available(
    *, deprecated, renamed: "ContentBuilder",
    message: "Write ContentBuilder<T.ParameterComponents, T.HeaderComponents> instead."
)
public typealias DefinitionBuilder<T: Endpoint> = ContentBuilder<T.ParameterComponents, T.HeaderComponents>

@available(*, deprecated, renamed: "ContentBuilder", message: "Write ContentBuilder<Void, Void> instead.")
public typealias RequestContentBuilder = ContentBuilder<Void, Void>
