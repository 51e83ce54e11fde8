/// The request bodies CardDAV syncs and discovery send
/// ([RFC 4918](https://www.rfc-editor.org/rfc/rfc4918) PROPFIND,
/// [RFC 6578](https://www.rfc-editor.org/rfc/rfc6578) sync-collection,
/// [RFC 6352](https://www.rfc-editor.org/rfc/rfc6352) addressbook-multiget).
enum CardDAVRequests {
    private static let header = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"

    /// What a URL is: an address book, a principal, a home set.
    static let describe =
        header + """
            <d:propfind xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav">
              <d:prop><d:resourcetype/><d:displayname/><d:current-user-principal/><card:addressbook-home-set/></d:prop>
            </d:propfind>
            """

    /// The members of a home set that may be address books.
    static let listCollections =
        header + """
            <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:displayname/></d:prop></d:propfind>
            """

    /// The collection tag and sync token of a book (Depth 0).
    static let collectionState =
        header + """
            <d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/">
              <d:prop><cs:getctag/><d:sync-token/></d:prop>
            </d:propfind>
            """

    /// Every member's entity tag (Depth 1): the listing when the server has no sync-collection.
    static let memberETags =
        header + """
            <d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:resourcetype/></d:prop></d:propfind>
            """

    /// Changes since `token` (all members for no token), with their cards:
    /// servers that do not return address-data here get an addressbook-multiget.
    static func syncCollection(token: String?) -> String {
        let tokenElement = token.map { "<d:sync-token>\(WebDAVXML.escape($0))</d:sync-token>" } ?? "<d:sync-token/>"
        return header + """
            <d:sync-collection xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav">
              \(tokenElement)
              <d:sync-level>1</d:sync-level>
              <d:prop><d:getetag/><card:address-data/></d:prop>
            </d:sync-collection>
            """
    }

    /// The cards at `hrefs` with their entity tags.
    static func multiget(_ hrefs: some Sequence<String>) -> String {
        var body =
            header + """
                <card:addressbook-multiget xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav">
                  <d:prop><d:getetag/><card:address-data/></d:prop>

                """
        for href in hrefs { body += "  <d:href>\(WebDAVXML.escape(href))</d:href>\n" }
        body += "</card:addressbook-multiget>\n"
        return body
    }
}
