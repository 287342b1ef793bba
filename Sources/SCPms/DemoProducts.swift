/// The demo back end behind `{base}/{appId}`: a read-only `Products` entity set, fixed in code so traces and
/// tests are the same on every run (the original app reads its data through an `OnlineODataProvider` here).
public enum DemoProducts {
    public static let type = ODataEntityType(
        namespace: "WorkbenchDemo", name: "Product", key: "ProductID",
        properties: [
            .init(name: "ProductID", type: .int32),
            .init(name: "Name", type: .string(maxLength: 80)),
            .init(name: "Category", type: .string(maxLength: 40)),
            .init(name: "Price", type: .decimal(precision: 10, scale: 2)),
            .init(name: "CurrencyCode", type: .string(maxLength: 3)),
            .init(name: "InStock", type: .boolean),
        ])

    public static let entitySet = ODataEntitySet(
        name: "Products", type: type,
        entities: [
            product(1, "Notebook Basic 15", "Notebooks", 956_00, inStock: true),
            product(2, "Notebook Professional 17", "Notebooks", 1_999_00, inStock: false),
            product(3, "Flat Screen 24", "Monitors", 399_00, inStock: true),
            product(4, "Wireless Mouse", "Accessories", 24_50, inStock: true),
            product(5, "Ergonomic Keyboard", "Accessories", 69_90, inStock: true),
            product(6, "Laser Printer", "Printers", 229_00, inStock: false),
        ])

    /// The service's entity container (named in `$metadata`).
    public static let containerName = "WorkbenchDemoEntities"

    private static func product(_ id: Int64, _ name: String, _ category: String, _ hundredths: Int64, inStock: Bool) -> ODataEntity {
        ODataEntity([
            "ProductID": .int(id), "Name": .string(name), "Category": .string(category),
            "Price": .decimal(hundredths: hundredths), "CurrencyCode": .string("EUR"), "InStock": .bool(inStock),
        ])
    }
}
