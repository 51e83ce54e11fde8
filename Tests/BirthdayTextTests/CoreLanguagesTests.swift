import BirthdayCore
import BirthdayText
import Testing

/// The domain rules know the catalog's languages and the name-day label
/// without the catalog (issue 42): ``Language/available`` and
/// ``LabelRules/nameDayLabels`` in core are the catalog's own.
@Suite struct CoreLanguagesTests {
    @Test func coreListsTheCatalogsLanguagesInItsOrder() {
        #expect(Language.available == StringCatalog.embedded.languages)
    }

    @Test func coreHasTheNameDayLabelOfEveryLanguage() {
        let catalog = StringCatalog.embedded.languages.map { Localizer(language: $0)(.plain(.nameDayLabel)) }
        #expect(LabelRules.nameDayLabels == catalog)
        for language in StringCatalog.embedded.languages {
            #expect(LabelRules.nameDayLabel(language: language) == Localizer(setting: language, systemLocale: nil)(.plain(.nameDayLabel)))
        }
        #expect(LabelRules.nameDayLabel(language: "de-AT") == "Namenstag")
        #expect(LabelRules.nameDayLabel(language: "sv") == "Name day", "a language without texts is English")
        #expect(LabelRules.nameDayLabel(language: nil) == "Name day")
    }
}
