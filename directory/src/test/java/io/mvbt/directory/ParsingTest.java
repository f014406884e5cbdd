// SPDX-License-Identifier: Apache-2.0
package io.mvbt.directory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** DN and filter parsing: what parses into what, and errors that name the position. */
class ParsingTest {
    private static void dnError(String dn, int position, String words) {
        SyntaxException e = assertThrows(SyntaxException.class, () -> Dn.parse(dn), dn);
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.getMessage().contains(words), e.getMessage());
        assertTrue(e.getMessage().contains("position " + position), e.getMessage());
    }

    private static void filterError(String filter, int position, String words) {
        SyntaxException e = assertThrows(SyntaxException.class, () -> Filter.parse(filter), filter);
        assertEquals(position, e.position(), e.getMessage());
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }

    @Test
    void dnsParseWithEscapesSpacesAndMultiValuedRdns() {
        Dn dn = Dn.parse("CN=Smith\\, John + uid=js , ou=People,dc=example,dc=com");
        assertEquals(4, dn.size());
        assertEquals(List.of(new Rdn.Ava("cn", "Smith, John"), new Rdn.Ava("uid", "js")), dn.rdn().avas());
        assertEquals("cn=Smith\\, John+uid=js,ou=People,dc=example,dc=com", dn.toString());
        assertEquals("cn=smith\\, john+uid=js,ou=people,dc=example,dc=com", dn.normalized(Schema.defaults()));
        assertEquals("caf\u00e9", Dn.parse("cn=caf\\c3\\a9").rdn().avas().get(0).value());
        assertEquals(Dn.parse("ou=People,dc=example,dc=com"), dn.parent());
        assertTrue(dn.isWithin(Dn.parse("DC=Example,dc=COM"), Schema.defaults()));
        assertTrue(Dn.parse("").isRoot());
        assertEquals(dn, Dn.parse(dn.toString()));
    }

    @Test
    void badDnsNameThePosition() {
        dnError("cn=a,,dc=com", 5, "expected an attribute type");
        dnError("cn=a,dc", 7, "expected '='");
        dnError("cn", 2, "expected '='");
        dnError("cn=", 3, "empty attribute value");
        dnError("cn=a\\", 4, "escapes nothing");
        dnError("cn=a\\zb", 4, "not an escape");
        dnError("cn=a\\4", 4, "second hex digit");
        dnError("cn=#0403", 3, "BER");
        dnError("cn=a=b", 4, "must be escaped");
        dnError("1cn=x", 1, "expected '='");
        dnError("=x", 0, "expected an attribute type");
    }

    @Test
    void filtersParseIntoTheirParts() {
        Filter f = Filter.parse("(&(objectClass=person)(|(cn=Te*st*ing)(!(sn<=m)))(mail=*)(uid>=a\\2ab)(cn=*x))");
        Filter.And and = (Filter.And) f;
        assertEquals(new Filter.Equality("objectclass", "person"), and.children().get(0));
        Filter.Or or = (Filter.Or) and.children().get(1);
        assertEquals(new Filter.Substring("cn", "Te", List.of("st"), "ing"), or.children().get(0));
        assertEquals(new Filter.Not(new Filter.LessOrEqual("sn", "m")), or.children().get(1));
        assertEquals(new Filter.Presence("mail"), and.children().get(2));
        assertEquals(new Filter.GreaterOrEqual("uid", "a*b"), and.children().get(3));
        assertEquals(new Filter.Substring("cn", null, List.of(), "x"), and.children().get(4));
        assertEquals(f, Filter.parse(f.toString()));
        assertEquals(new Filter.Equality("cn", "caf\u00e9 (x)"), Filter.parse("(cn=caf\\c3\\a9 \\28x\\29)"));
        assertEquals(new Filter.And(List.of()), Filter.parse("(&)"));
        assertEquals(new Filter.Equality("cn", "bare"), Filter.parse("cn=bare"));
    }

    @Test
    void badFiltersNameThePosition() {
        filterError("", 0, "empty");
        filterError("(cn=a", 5, "expected ')'");
        filterError("(&(cn=a)", 8, "expected ')'");
        filterError("(cn=a))", 6, "after the end of the filter");
        filterError("(=a)", 1, "expected an attribute name");
        filterError("(cn~=a)", 3, "approximate match");
        filterError("(cn:dn:=a)", 3, "extensible match");
        filterError("(cn=a\\2)", 5, "two hex digits");
        filterError("(cn=a\\zz)", 5, "two hex digits");
        filterError("(cn>a)", 4, "expected '=' after '>'");
        filterError("(cn>=a*)", 6, "'*' is not allowed");
        filterError("(cn=a**b)", 4, "two '*' in a row");
        filterError("(cn=(a))", 4, "must be escaped");
        filterError("(!(cn=a)(sn=b))", 8, "expected ')'");
        filterError("(cn)", 3, "expected '='");
        filterError("(!".repeat(200) + "(cn=a)" + ")".repeat(200), 202, "nested deeper");
        filterError("((cn=a))", 1, "must be escaped");
    }
}
