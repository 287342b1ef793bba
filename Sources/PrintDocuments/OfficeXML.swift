import MarkupEscaping

/// The ZIP-based office formats (OOXML's DOCX and PPTX, ODF's ODT): writing minimal valid packages and reading their
/// page counts, titles, page sizes and page texts.
enum OfficeXML {
    private static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    private static let relationshipsNamespace = "http://schemas.openxmlformats.org/package/2006/relationships"
    private static let officeRelationships = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

    // MARK: Writing

    static func docx(pages: Int, title: String) -> [UInt8] {
        let safeTitle = MarkupText.escaped(title, .minimal)
        var body = ""
        var words = 0
        for page in 1...pages {
            let lines = pageLines(title: title, page: page, of: pages, noun: "Page")
            for (index, line) in lines.enumerated() {
                let style = index == 0 ? "<w:pPr><w:pStyle w:val=\"Title\"/></w:pPr>" : ""
                body += "<w:p>\(style)<w:r><w:t xml:space=\"preserve\">\(MarkupText.escaped(line, .minimal))</w:t></w:r></w:p>"
                words += line.split(separator: " ").count
            }
            if page < pages { body += "<w:p><w:r><w:br w:type=\"page\"/></w:r></w:p>" }
        }
        // A4 (11906 × 16838 twentieths of a point), 1-inch margins: what Word writes for an A4 document.
        body +=
            "<w:sectPr><w:pgSz w:w=\"11906\" w:h=\"16838\"/><w:pgMar w:top=\"1440\" w:right=\"1440\" w:bottom=\"1440\" "
            + "w:left=\"1440\" w:header=\"708\" w:footer=\"708\" w:gutter=\"0\"/></w:sectPr>"
        var zip = ZIPWriter()
        zip.add(
            "[Content_Types].xml",
            Array(
                (declaration + """
                    <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
                    <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
                    <Default Extension="xml" ContentType="application/xml"/>\
                    <Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>\
                    <Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>\
                    <Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>\
                    </Types>
                    """).utf8), compress: true)
        zip.add("_rels/.rels", packageRelationships(main: "word/document.xml"), compress: true)
        zip.add(
            "word/document.xml",
            Array(
                (declaration + """
                    <w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>\(body)</w:body></w:document>
                    """).utf8), compress: true)
        zip.add("docProps/core.xml", coreProperties(title: safeTitle), compress: true)
        zip.add(
            "docProps/app.xml",
            Array(
                (declaration + """
                    <Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" \
                    xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">\
                    <Template>Normal.dotm</Template><TotalTime>0</TotalTime><Pages>\(pages)</Pages><Words>\(words)</Words>\
                    <Application>Microsoft Office Word</Application><DocSecurity>0</DocSecurity><Paragraphs>\(pages * 3)</Paragraphs>\
                    <ScaleCrop>false</ScaleCrop><LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc>\
                    <HyperlinksChanged>false</HyperlinksChanged><AppVersion>16.0000</AppVersion></Properties>
                    """).utf8), compress: true)
        return zip.finish()
    }

    static func pptx(pages: Int, title: String) -> [UInt8] {
        let presentationML = "http://schemas.openxmlformats.org/presentationml/2006/main"
        let drawingML = "http://schemas.openxmlformats.org/drawingml/2006/main"
        let namespaces = "xmlns:a=\"\(drawingML)\" xmlns:r=\"\(officeRelationships)\" xmlns:p=\"\(presentationML)\""
        let emptyTree = "<p:nvGrpSpPr><p:cNvPr id=\"1\" name=\"\"/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>"
        let slideType = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml"
        var zip = ZIPWriter()
        let slideOverrides = (1...pages).map { "<Override PartName=\"/ppt/slides/slide\($0).xml\" ContentType=\"\(slideType)\"/>" }.joined()
        zip.add(
            "[Content_Types].xml",
            Array(
                (declaration + """
                    <Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
                    <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
                    <Default Extension="xml" ContentType="application/xml"/>\
                    <Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>\
                    <Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"/>\
                    <Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"/>\
                    <Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>\
                    \(slideOverrides)\
                    <Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>\
                    <Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>\
                    </Types>
                    """).utf8), compress: true)
        zip.add("_rels/.rels", packageRelationships(main: "ppt/presentation.xml"), compress: true)
        let slideIDs = (1...pages).map { "<p:sldId id=\"\(255 + $0)\" r:id=\"rId\($0 + 1)\"/>" }.joined()
        // 16:9 widescreen (12,192,000 × 6,858,000 EMU = 960 × 540 pt), PowerPoint's default since 2013.
        zip.add(
            "ppt/presentation.xml",
            Array(
                (declaration + """
                    <p:presentation \(namespaces) saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>\
                    <p:sldIdLst>\(slideIDs)</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>
                    """).utf8), compress: true)
        var presentationRelationships = [relationship("rId1", "slideMaster", "slideMasters/slideMaster1.xml")]
        presentationRelationships += (1...pages).map { relationship("rId\($0 + 1)", "slide", "slides/slide\($0).xml") }
        presentationRelationships.append(relationship("rId\(pages + 2)", "theme", "theme/theme1.xml"))
        zip.add("ppt/_rels/presentation.xml.rels", relationships(presentationRelationships), compress: true)
        zip.add(
            "ppt/slideMasters/slideMaster1.xml",
            Array(
                (declaration + """
                    <p:sldMaster \(namespaces)><p:cSld><p:spTree>\(emptyTree)</p:spTree></p:cSld>\
                    <p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" \
                    accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>\
                    <p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>
                    """).utf8), compress: true)
        zip.add(
            "ppt/slideMasters/_rels/slideMaster1.xml.rels",
            relationships([
                relationship("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml"),
                relationship("rId2", "theme", "../theme/theme1.xml"),
            ]), compress: true)
        zip.add(
            "ppt/slideLayouts/slideLayout1.xml",
            Array(
                (declaration + """
                    <p:sldLayout \(namespaces) type="blank" preserve="1"><p:cSld name="Blank"><p:spTree>\(emptyTree)</p:spTree></p:cSld>\
                    <p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>
                    """).utf8), compress: true)
        zip.add(
            "ppt/slideLayouts/_rels/slideLayout1.xml.rels",
            relationships([
                relationship("rId1", "slideMaster", "../slideMasters/slideMaster1.xml")
            ]), compress: true)
        zip.add("ppt/theme/theme1.xml", Array((declaration + theme).utf8), compress: true)
        var words = 0
        for slide in 1...pages {
            let lines = pageLines(title: title, page: slide, of: pages, noun: "Slide")
            words += lines.reduce(0) { $0 + $1.split(separator: " ").count }
            let paragraphs = lines.enumerated().map { index, line in
                "<a:p><a:r><a:rPr lang=\"en-US\" sz=\"\(index == 0 ? 4000 : 2400)\"/><a:t>\(MarkupText.escaped(line, .minimal))</a:t></a:r></a:p>"
            }.joined()
            zip.add(
                "ppt/slides/slide\(slide).xml",
                Array(
                    (declaration + """
                        <p:sld \(namespaces)><p:cSld><p:spTree>\(emptyTree)<p:sp><p:nvSpPr><p:cNvPr id="2" name="Text 1"/>\
                        <p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr><a:xfrm><a:off x="609600" y="457200"/><a:ext cx="10972800" cy="5486400"/>\
                        </a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr wrap="square"/><a:lstStyle/>\
                        \(paragraphs)</p:txBody></p:sp></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>
                        """).utf8), compress: true)
            zip.add(
                "ppt/slides/_rels/slide\(slide).xml.rels",
                relationships([
                    relationship("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")
                ]), compress: true)
        }
        zip.add("docProps/core.xml", coreProperties(title: MarkupText.escaped(title, .minimal)), compress: true)
        zip.add(
            "docProps/app.xml",
            Array(
                (declaration + """
                    <Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" \
                    xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">\
                    <TotalTime>0</TotalTime><Words>\(words)</Words><Application>Microsoft Office PowerPoint</Application>\
                    <PresentationFormat>Widescreen</PresentationFormat><Paragraphs>\(pages * 3)</Paragraphs><Slides>\(pages)</Slides>\
                    <Notes>0</Notes><HiddenSlides>0</HiddenSlides><MMClips>0</MMClips><ScaleCrop>false</ScaleCrop>\
                    <LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc><HyperlinksChanged>false</HyperlinksChanged>\
                    <AppVersion>16.0000</AppVersion></Properties>
                    """).utf8), compress: true)
        return zip.finish()
    }

    static func odt(pages: Int, title: String) -> [UInt8] {
        let namespaces = """
            xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
            xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" \
            xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" \
            xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" \
            xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" \
            xmlns:dc="http://purl.org/dc/elements/1.1/" office:version="1.2"
            """
        var paragraphs = ""
        var words = 0
        var characters = 0
        for page in 1...pages {
            for (index, line) in pageLines(title: title, page: page, of: pages, noun: "Page").enumerated() {
                let style = index == 0 ? (page == 1 ? "Title" : "TitleOnNewPage") : "Standard"
                paragraphs += "<text:p text:style-name=\"\(style)\">\(MarkupText.escaped(line, .minimal))</text:p>"
                words += line.split(separator: " ").count
                characters += line.count
            }
        }
        var zip = ZIPWriter()
        // ODF: `mimetype` first and stored, so a reader recognises the package by its first bytes.
        zip.add("mimetype", Array("application/vnd.oasis.opendocument.text".utf8), compress: false)
        zip.add(
            "META-INF/manifest.xml",
            Array(
                (declaration + """
                    <manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">\
                    <manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="application/vnd.oasis.opendocument.text"/>\
                    <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>\
                    <manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>\
                    <manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>\
                    </manifest:manifest>
                    """).utf8), compress: true)
        zip.add(
            "content.xml",
            Array(
                (declaration + """
                    <office:document-content \(namespaces)><office:automatic-styles>\
                    <style:style style:name="TitleOnNewPage" style:family="paragraph" style:parent-style-name="Title">\
                    <style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>\
                    <office:body><office:text>\(paragraphs)</office:text></office:body></office:document-content>
                    """).utf8), compress: true)
        zip.add(
            "styles.xml",
            Array(
                (declaration + """
                    <office:document-styles \(namespaces)><office:styles>\
                    <style:style style:name="Standard" style:family="paragraph"/>\
                    <style:style style:name="Title" style:family="paragraph" style:parent-style-name="Standard">\
                    <style:text-properties fo:font-size="28pt"/></style:style></office:styles>\
                    <office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21.001cm" \
                    fo:page-height="29.7cm" style:print-orientation="portrait" fo:margin-top="2cm" fo:margin-bottom="2cm" \
                    fo:margin-left="2cm" fo:margin-right="2cm"/></style:page-layout></office:automatic-styles>\
                    <office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1"/></office:master-styles>\
                    </office:document-styles>
                    """).utf8), compress: true)
        zip.add(
            "meta.xml",
            Array(
                (declaration + """
                    <office:document-meta \(namespaces)><office:meta><meta:generator>\(PDFWriter.mark)</meta:generator>\
                    <dc:title>\(MarkupText.escaped(title, .minimal))</dc:title><meta:document-statistic meta:page-count="\(pages)" \
                    meta:paragraph-count="\(pages * 3)" meta:word-count="\(words)" meta:character-count="\(characters)"/>\
                    </office:meta></office:document-meta>
                    """).utf8), compress: true)
        return zip.finish()
    }

    /// What every generated page says: the title, which page of how many, and a line of body text.
    static func pageLines(title: String, page: Int, of pages: Int, noun: String) -> [String] {
        [title, "\(noun) \(page) of \(pages)", "This \(noun.lowercased()) was generated by Workbench for printing tests."]
    }

    private static func packageRelationships(main: String) -> [UInt8] {
        relationships([
            relationship("rId1", "officeDocument", main),
            "<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties\" Target=\"docProps/core.xml\"/>",
            relationship("rId3", "extended-properties", "docProps/app.xml"),
        ])
    }

    private static func relationship(_ id: String, _ type: String, _ target: String) -> String {
        "<Relationship Id=\"\(id)\" Type=\"\(officeRelationships)/\(type)\" Target=\"\(target)\"/>"
    }

    private static func relationships(_ items: [String]) -> [UInt8] {
        Array((declaration + "<Relationships xmlns=\"\(relationshipsNamespace)\">" + items.joined() + "</Relationships>").utf8)
    }

    /// Core properties without dates: real producers write dcterms:created, which would make the bytes change.
    private static func coreProperties(title: String) -> [UInt8] {
        Array(
            (declaration + """
                <cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" \
                xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" \
                xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\
                <dc:title>\(title)</dc:title><dc:creator>Workbench</dc:creator></cp:coreProperties>
                """).utf8)
    }

    /// The smallest complete DrawingML theme: twelve colours, a font pair, three of each format style.
    private static let theme = """
        <a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Office Theme"><a:themeElements>\
        <a:clrScheme name="Office"><a:dk1><a:sysClr val="windowText" lastClr="000000"/></a:dk1>\
        <a:lt1><a:sysClr val="window" lastClr="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="44546A"/></a:dk2>\
        <a:lt2><a:srgbClr val="E7E6E6"/></a:lt2><a:accent1><a:srgbClr val="4472C4"/></a:accent1>\
        <a:accent2><a:srgbClr val="ED7D31"/></a:accent2><a:accent3><a:srgbClr val="A5A5A5"/></a:accent3>\
        <a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5>\
        <a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink>\
        <a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme>\
        <a:fontScheme name="Office"><a:majorFont><a:latin typeface="Calibri Light"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>\
        <a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>\
        <a:fmtScheme name="Office"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>\
        <a:lnStyleLst><a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>\
        <a:ln w="12700"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>\
        <a:ln w="19050"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>\
        <a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle>\
        <a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill>\
        <a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst>\
        </a:fmtScheme></a:themeElements></a:theme>
        """

    // MARK: Reading

    static func read(_ zip: ZIPReader, format: OfficeFormat, withText: Bool) throws(DocumentError) -> OfficeDocument.Content {
        let kind = format.rawValue.uppercased()
        var budget = DocumentLimits.maximumBodyBytes
        func entry(_ name: String, limit: Int = DocumentLimits.maximumMetadataBytes) throws(DocumentError) -> [UInt8]? {
            try zip.contents(of: name, limit: limit)
        }
        func body(_ name: String) throws(DocumentError) -> [UInt8]? {
            guard let data = try zip.contents(of: name, limit: budget) else { return nil }
            budget -= data.count
            return data
        }
        switch format {
        case .docx, .pptx:
            guard zip.entryNames.contains("[Content_Types].xml") else {
                throw DocumentError("not a \(kind) file: the package has no [Content_Types].xml, which every OOXML package has")
            }
            let title = try entry("docProps/core.xml").flatMap { firstText(in: $0, element: "title") }
            let app = try entry("docProps/app.xml")
            let declared = try number(app.flatMap { firstText(in: $0, element: format == .docx ? "Pages" : "Slides") }, kind: kind)
            if format == .docx {
                guard declared == nil || withText else { return OfficeDocument.Content(pages: declared ?? 0, title: title) }
                guard let document = try body("word/document.xml") else {
                    throw DocumentError("not a \(kind) file: no word/document.xml\(declared == nil ? ", and docProps/app.xml has no <Pages>" : "")")
                }
                let (pages, size) = wordPages(document)
                return OfficeDocument.Content(pages: declared ?? pages.count, title: title, pageTexts: pages, size: size)
            }
            guard let presentation = try entry("ppt/presentation.xml") else {
                throw DocumentError("not a \(kind) file: no ppt/presentation.xml")
            }
            let (slideTargets, size) = try slideOrder(presentation, zip: zip)
            var content = OfficeDocument.Content(pages: declared ?? slideTargets.count, title: title, size: size)
            if withText {
                var texts: [[String]] = []
                for target in slideTargets {
                    guard let slide = try? body(target) else { break }
                    texts.append(paragraphs(in: slide, paragraph: "p", run: "t"))
                }
                if texts.count == slideTargets.count { content.pageTexts = texts }
            }
            return content
        case .odt:
            if let mimetype = try entry("mimetype"), String(decoding: mimetype, as: UTF8.self) != "application/vnd.oasis.opendocument.text" {
                throw DocumentError("not an ODT file: its mimetype is '\(String(decoding: mimetype.prefix(80), as: UTF8.self))'")
            }
            let meta = try entry("meta.xml")
            let title = meta.flatMap { firstText(in: $0, element: "title") }
            let declared = try number(meta.flatMap { attribute(in: $0, element: "document-statistic", name: "meta:page-count") }, kind: kind)
            let size = try entry("styles.xml").flatMap(odfPageSize)
            guard declared == nil || withText else { return OfficeDocument.Content(pages: declared ?? 0, title: title, size: size) }
            guard let content = try body("content.xml") else {
                throw DocumentError("not an ODT file: no content.xml\(declared == nil ? ", and meta.xml has no meta:page-count" : "")")
            }
            let pages = odfPages(content)
            return OfficeDocument.Content(pages: declared ?? pages.count, title: title, pageTexts: pages, size: size)
        case .doc, .ppt:
            throw DocumentError("\(kind) is not a ZIP-based format")
        }
    }

    private static func localName(_ name: String) -> Substring {
        name.split(separator: ":").last ?? Substring(name)
    }

    private static func firstText(in xml: [UInt8], element: String) -> String? {
        var inside = false
        var text = ""
        for event in XMLEvents(bytes: xml) {
            switch event {
            case .start(let name, _, let selfClosing) where localName(name) == element:
                if selfClosing { return "" }
                inside = true
            case .end(let name) where inside && localName(name) == element: return text
            case .text(let value) where inside: text += value
            default: continue
            }
        }
        return nil
    }

    private static func attribute(in xml: [UInt8], element: String, name: String) -> String? {
        for case .start(let tag, let attributes, _) in XMLEvents(bytes: xml) where localName(tag) == element {
            return attributes[name]
        }
        return nil
    }

    private static func number(_ text: String?, kind: String) throws(DocumentError) -> Int? {
        guard let text else { return nil }
        let digits = text.filter { !$0.isWhitespace }
        guard !digits.isEmpty, digits.count <= 9, let value = Int(digits) else {
            throw DocumentError("the \(kind) file's metadata gives its page count as '\(text.excerpt(20))'; expected a number")
        }
        return value
    }

    /// A WordprocessingML body split at hard page breaks (`<w:br w:type="page"/>`, `<w:pageBreakBefore/>`), each page's
    /// non-empty paragraphs as lines; and the section's page size.
    static func wordPages(_ xml: [UInt8]) -> ([[String]], PageSize?) {
        var pages: [[String]] = []
        var current: [String] = []
        var paragraph = ""
        var inText = false
        var size: PageSize?
        func breakPage() {
            if !paragraph.isEmpty {
                current.append(paragraph)
                paragraph = ""
            }
            pages.append(current)
            current = []
        }
        for event in XMLEvents(bytes: xml) {
            switch event {
            case .start(let name, let attributes, let selfClosing):
                switch localName(name) {
                case "p": paragraph = ""
                case "t": inText = !selfClosing
                case "tab": paragraph += " "
                case "br" where attributes["w:type"] == "page": breakPage()
                case "pageBreakBefore" where !current.isEmpty && attributes["w:val"] != "0" && attributes["w:val"] != "false": breakPage()
                case "pgSz":
                    if let width = attributes["w:w"].flatMap({ Int($0) }), let height = attributes["w:h"].flatMap({ Int($0) }),
                        (20...400_000).contains(width), (20...400_000).contains(height)
                    {
                        let portrait = PageSize(width: (width + 10) / 20, height: (height + 10) / 20)
                        size = attributes["w:orient"] == "landscape" && !portrait.isLandscape ? portrait.rotated : portrait
                    }
                default: break
                }
            case .end(let name):
                switch localName(name) {
                case "t": inText = false
                case "p":
                    if !paragraph.isEmpty { current.append(paragraph) }
                    paragraph = ""
                default: break
                }
            case .text(let text) where inText: paragraph += text
            default: break
            }
        }
        pages.append(current)
        return (pages, size)
    }

    /// The slides in presentation order (`sldIdLst` through the presentation's relationships), and the slide size.
    private static func slideOrder(_ presentation: [UInt8], zip: ZIPReader) throws(DocumentError) -> ([String], PageSize?) {
        var ids: [String] = []
        var size: PageSize?
        for case .start(let name, let attributes, _) in XMLEvents(bytes: presentation) {
            switch localName(name) {
            case "sldId": if let id = attributes["r:id"] { ids.append(id) }
            case "sldSz":
                // EMU: 12,700 per point.
                if let cx = attributes["cx"].flatMap({ Int($0) }), let cy = attributes["cy"].flatMap({ Int($0) }),
                    (12_700...51_206_400).contains(cx), (12_700...51_206_400).contains(cy)
                {
                    size = PageSize(width: (cx + 6_350) / 12_700, height: (cy + 6_350) / 12_700)
                }
            default: continue
            }
        }
        var targets: [String: String] = [:]
        if let relationships = try zip.contents(of: "ppt/_rels/presentation.xml.rels", limit: DocumentLimits.maximumMetadataBytes) {
            for case .start(let name, let attributes, _) in XMLEvents(bytes: relationships) where localName(name) == "Relationship" {
                if let id = attributes["Id"], let target = attributes["Target"] {
                    targets[id] = target.hasPrefix("/") ? String(target.dropFirst()) : "ppt/" + target
                }
            }
        }
        let ordered = ids.compactMap { targets[$0] }
        if !ordered.isEmpty, ordered.count == ids.count { return (ordered, size) }
        // No usable order: the slide parts by number.
        let slides = zip.entryNames.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("ppt/slides/slide"), name.hasSuffix(".xml") else { return nil }
            return Int(name.dropFirst("ppt/slides/slide".count).dropLast(4)).map { ($0, name) }
        }.sorted { $0.0 < $1.0 }.map(\.1)
        return (slides.isEmpty ? Array(repeating: "", count: ids.count) : slides, size)
    }

    /// Non-empty paragraphs (`<x:p>` elements) of an XML part, their runs' text joined.
    static func paragraphs(in xml: [UInt8], paragraph: String, run: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var inRun = false
        for event in XMLEvents(bytes: xml) {
            switch event {
            case .start(let name, _, let selfClosing):
                if localName(name) == paragraph { current = "" }
                if localName(name) == run { inRun = !selfClosing }
            case .end(let name):
                if localName(name) == run { inRun = false }
                if localName(name) == paragraph, !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
            case .text(let text) where inRun: current += text
            default: break
            }
        }
        return lines
    }

    /// An ODF text body split before paragraphs whose style breaks the page and at `<text:soft-page-break/>` (where
    /// LibreOffice's layout broke the pages when it saved).
    static func odfPages(_ xml: [UInt8]) -> [[String]] {
        var breakingStyles = Set<String>()
        var style: String?
        var pages: [[String]] = []
        var current: [String] = []
        var paragraph: String?
        var depth = 0
        for event in XMLEvents(bytes: xml) {
            switch event {
            case .start(let name, let attributes, let selfClosing):
                switch name {
                case "style:style": style = attributes["style:name"]
                case "style:paragraph-properties":
                    if attributes["fo:break-before"] == "page", let style { breakingStyles.insert(style) }
                case "text:soft-page-break":
                    if !current.isEmpty {
                        pages.append(current)
                        current = []
                    }
                case "text:p", "text:h":
                    if paragraph == nil {
                        if let name = attributes["text:style-name"], breakingStyles.contains(name), !current.isEmpty {
                            pages.append(current)
                            current = []
                        }
                        paragraph = ""
                        depth = 0
                        if selfClosing { paragraph = nil }
                    } else if !selfClosing {
                        depth += 1
                    }
                case "text:s", "text:tab": paragraph? += " "
                default: break
                }
            case .end(let name):
                if name == "style:style" { style = nil }
                if name == "text:p" || name == "text:h" {
                    if depth > 0 {
                        depth -= 1
                    } else if let text = paragraph {
                        if !text.isEmpty { current.append(text) }
                        paragraph = nil
                    }
                }
            case .text(let text):
                if paragraph != nil { paragraph? += text }
            }
        }
        pages.append(current)
        return pages
    }

    /// The first page layout's size in points (`fo:page-width` in cm, mm, in or pt).
    private static func odfPageSize(_ styles: [UInt8]) -> PageSize? {
        for case .start(let name, let attributes, _) in XMLEvents(bytes: styles) where name == "style:page-layout-properties" {
            guard let width = attributes["fo:page-width"].flatMap(points), let height = attributes["fo:page-height"].flatMap(points),
                (1...20_000).contains(width), (1...20_000).contains(height)
            else { return nil }
            return PageSize(width: width, height: height)
        }
        return nil
    }

    private static func points(_ length: String) -> Int? {
        let units: [(String, Double)] = [("cm", 72 / 2.54), ("mm", 72 / 25.4), ("in", 72), ("pt", 1)]
        for (unit, factor) in units where length.hasSuffix(unit) {
            guard let value = Double(length.dropLast(unit.count)), value.isFinite, value > 0, value < 1e5 else { return nil }
            return Int((value * factor).rounded())
        }
        return nil
    }
}
