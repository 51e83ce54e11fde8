#!/usr/bin/env python3
"""Fills an invitation's form of `birthdays serve` in headless Chromium and prints what happened, as JSON.

Usage: invite_check.py URL NAME DAY MONTH [YEAR]

It opens the form, runs axe-core on it (serious and critical violations),
sends it first with 30 February (the form must come back with what was
typed), then with DAY and MONTH (and YEAR, when given), the month chosen
from the select by its value, by clicking the button as a person would.

Printed: the form's fields, axe's findings, the status page after each
send (its text, whether the typed name came back, whether a script in the
name ran), the console's errors, the requests that left the origin and any
Content-Security-Policy violation. InviteBrowserTests decides what is right.
"""
import json
import sys
from urllib.parse import urlsplit

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from page_check import driver  # noqa: E402


def fill(browser, name, day, month, year):
    browser.find_element(By.ID, "name").clear()
    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "day").clear()
    browser.find_element(By.ID, "day").send_keys(day)
    Select(browser.find_element(By.ID, "month")).select_by_value(month)
    browser.find_element(By.ID, "year").clear()
    if year:
        browser.find_element(By.ID, "year").send_keys(year)
    button = browser.find_element(By.CSS_SELECTOR, "button[type=submit]")
    button.click()
    # The answer is a new page: wait until the form that was sent is gone.
    WebDriverWait(browser, 120).until(expected_conditions.staleness_of(button))
    WebDriverWait(browser, 120).until(lambda b: b.execute_script("return document.readyState") == "complete")


def main():
    url, name, day, month = sys.argv[1:5]
    year = sys.argv[5] if len(sys.argv) > 5 else ""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    browser = driver()
    try:
        browser.get(url)
        facts = {
            "fields": sorted(element.get_attribute("name") for element in browser.find_elements(By.CSS_SELECTOR, "form [name]")),
            "form_text": browser.find_element(By.TAG_NAME, "main").get_attribute("textContent"),
            "lang": browser.find_element(By.TAG_NAME, "html").get_attribute("lang"),
        }
        from axe_selenium_python import Axe
        axe = Axe(browser)
        axe.inject()
        results = axe.run()
        facts["axe"] = sorted({violation["id"] for violation in results["violations"]
                               if violation.get("impact") in ("serious", "critical")})
        browser.get(url)

        fill(browser, name, "30", "2", year)
        facts["invalid_problem"] = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".problem")]
        facts["invalid_name_back"] = browser.find_element(By.ID, "name").get_attribute("value")
        facts["invalid_script_ran"] = browser.execute_script("return window.pwned !== undefined")

        fill(browser, name, day, month, year)
        facts["sent_text"] = browser.find_element(By.TAG_NAME, "main").get_attribute("textContent")
        facts["sent_script_ran"] = browser.execute_script("return window.pwned !== undefined")

        console = browser.get_log("browser")
        facts["console_errors"] = [entry["message"] for entry in console if entry["level"] == "SEVERE"]
        facts["csp_violations"] = [entry["message"] for entry in console if "Content Security Policy" in entry["message"]]
        requests = []
        for entry in browser.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
        facts["foreign_requests"] = sorted({r for r in requests if not r.startswith(origin + "/")})
        print(json.dumps(facts))
    finally:
        browser.quit()


if __name__ == "__main__":
    main()
