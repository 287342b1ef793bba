import PrintDocuments
import Testing

@Suite struct StandInJarTests {
    @Test(arguments: StandInJar.allCases)
    func standInsHaveTheRealSizesAndAreReadLikeJava(jar: StandInJar) throws {
        let bytes = jar.bytes()
        #expect(bytes.count == jar.size)
        let again = bytes == jar.bytes()
        #expect(again, "deterministic, so its digest is fixed")
        let info = try JarFile.inspect(bytes)
        #expect(info.mainClass == jar.mainClass)
        #expect(Set(jar.classNames).isSubset(of: info.classNames))
        let zip = try ZIPReader(bytes)
        #expect(zip.entryNames.first == "META-INF/MANIFEST.MF", "java expects the manifest first")
    }

    @Test func theSizesAreTheOnesTheAppExpects() {
        #expect(StandInJar.docsToPDF.size == 46_617_390)
        #expect(StandInJar.nupPDF.size == 1_174_581)
        #expect(StandInJar.multivalent.size == 2_716_363)
        #expect(StandInJar.docsToPDF.fileName == "docs-to-pdf-converter-1.7.jar")
        #expect(StandInJar.docsToPDF.mainClass == "com.yeokhengmeng.docstopdfconverter.MainClass")
    }

    @Test func multivalentHoldsImpose() throws {
        let info = try JarFile.inspect(StandInJar.multivalent.bytes())
        #expect(info.classNames.contains("tool.pdf.Impose"))
        #expect(info.mainClass == "multivalent.Multivalent")
    }

    @Test func aTruncatedUploadIsNotAJar() {
        let jar = StandInJar.docsToPDF.bytes()
        #expect {
            try JarFile.inspect(Array(jar.prefix(1 << 20)))
        } throws: { error in
            (error as? DocumentError)?.message.hasPrefix("not a ZIP archive: no end-of-central-directory record") == true
        }
        #expect(throws: DocumentError.self) { try JarFile.inspect(Array("plain text, not a jar".utf8)) }
        #expect(throws: DocumentError.self) { try JarFile.inspect([]) }
    }

    @Test func inspectReadsTheDirectoryNotThePayload() throws {
        // Scrambling the middle of the padding does not matter: java reads the directory and the manifest only.
        var jar = StandInJar.nupPDF.bytes()
        for index in stride(from: 400_000, to: 600_000, by: 7) { jar[index] ^= 0x5A }
        #expect(try JarFile.inspect(jar).mainClass == "NUp")
    }

    @Test func manifestContinuationLinesAreJoined() throws {
        var zip = ZIPWriter()
        let name = "com.example.a.very.long.package.name.that.wraps.past.seventy.two.bytes.Main"
        zip.add(
            "META-INF/MANIFEST.MF", Array("Manifest-Version: 1.0\r\nMain-Class: \(name.prefix(50))\r\n \(name.dropFirst(50))\r\n\r\n".utf8),
            compress: true)
        #expect(try JarFile.inspect(zip.finish()).mainClass == name)
        var bare = ZIPWriter()
        bare.add("Hello.class", [0xCA, 0xFE, 0xBA, 0xBE], compress: false)
        let info = try JarFile.inspect(bare.finish())
        #expect(info == JarInfo(mainClass: nil, classNames: ["Hello"]), "no manifest: no main class (java: no main manifest attribute)")
    }
}
