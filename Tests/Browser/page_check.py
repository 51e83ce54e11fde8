#!/usr/bin/env python3
"""Opens a page of `birthdays serve` in headless Chromium and prints what it found, as JSON.

Usage: page_check.py URL [--screenshot PATH] [--axe] [--popups WIDTH]

Printed: the page's title, the number of months and of next events, every
name shown, the console's errors, the requests that left the page's origin,
the Content-Security-Policy header and any violation of it, whether a
script in a name ran, the pages and orientation of the page printed to PDF,
(in the print stylesheet) how many days' names are cut off, what the
printed legend says and how many names carry a visible symbol, (--axe)
axe-core's serious and critical violations, and (--popups WIDTH) on a
phone's viewport WIDTH pixels wide each named day's pop-up that does not lie
within it. The test that runs it (PageBrowserTests) decides what is right.
"""
import base64
import json
import re
import sys
from urllib.parse import urlsplit

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By


def driver():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1800",
                     "--no-first-run", "--disable-background-networking", "--disable-component-update",
                     "--disable-default-apps", "--disable-sync", "--lang=en-US"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # On a loaded machine Chromium may start slower than chromedriver waits for it: one more try;
    # and minutes, not selenium's default 30 s, for scripts and pages.
    try:
        browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    except WebDriverException:
        browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    browser.set_script_timeout(300)
    browser.set_page_load_timeout(300)
    return browser


def pdf_facts(pdf):
    """The number of pages and whether the first is wider than high."""
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))
    box = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    landscape = bool(box) and float(box.group(3)) - float(box.group(1)) > float(box.group(4)) - float(box.group(2))
    return pages, landscape


def popups(browser, width):
    """On a phone's viewport `width` pixels wide, focuses each named day and
    returns how many pop-ups it opened and those not within the viewport."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": width, "height": 800, "deviceScaleFactor": 2, "mobile": True})
    browser.refresh()
    return browser.execute_script("""
        const outside = [];
        const days = [...document.querySelectorAll('td.has')];
        const viewport = document.documentElement.clientWidth;
        for (const day of days) {
            day.focus();
            const box = day.querySelector('.who').getBoundingClientRect();
            if (box.left < 0 || box.right > viewport) {
                const month = day.closest('section.month').querySelector('h3').textContent;
                outside.push(month + ' ' + day.querySelector('.day').textContent + ': ' + Math.round(box.left) + '..' + Math.round(box.right));
            }
        }
        return [days.length, outside];
    """)


def main():
    url = sys.argv[1]
    screenshot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    browser = driver()
    try:
        browser.get(url)
        facts = {
            "title": browser.title,
            "months": len(browser.find_elements(By.CSS_SELECTOR, "section.month")),
            "next": len(browser.find_elements(By.CSS_SELECTOR, ".next li")),
            # A day's name without its printed kind's symbol (and without the "+N" of a crowded day).
            "names": sorted(set(browser.execute_script(
                "return [...document.querySelectorAll('.next .name, td .who > span:not(.more)')].map(e => [...e.childNodes]"
                ".filter(n => !(n.classList && n.classList.contains('sym'))).map(n => n.textContent).join(''))"))),
            "lines": len(browser.find_elements(By.CSS_SELECTOR, ".next .line")),
            "links": [element.get_attribute("href") for element in browser.find_elements(By.CSS_SELECTOR, ".next .line a")],
            "text": browser.find_element(By.TAG_NAME, "body").get_attribute("textContent"),
            "script_ran": browser.execute_script("return window.pwned !== undefined || document.title === 'pwned'"),
        }
        if screenshot:
            browser.save_screenshot(screenshot)
        pages, landscape = pdf_facts(base64.b64decode(
            browser.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})["data"]))
        facts["pdf_pages"], facts["pdf_landscape"] = pages, landscape
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        facts["print_cut"] = browser.execute_script(
            "return [...document.querySelectorAll('td .who')].filter(e => e.scrollHeight > e.clientHeight + 1).length")
        facts["print_legend"] = browser.execute_script(
            "const l = document.querySelector('.legend'); return l && getComputedStyle(l).display !== 'none' ? l.textContent : null")
        facts["print_symbols"] = browser.execute_script(
            "return [...document.querySelectorAll('td .who .sym')].filter(e => getComputedStyle(e).display !== 'none').length")
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.get(url + ("&" if "?" in url else "?") + "print=month")
        pages, _ = pdf_facts(base64.b64decode(
            browser.execute_cdp_cmd("Page.printToPDF", {"preferCSSPageSize": True, "printBackground": True})["data"]))
        facts["pdf_month_pages"] = pages
        browser.get(url)

        if "--popups" in sys.argv:
            facts["popups"], facts["popups_outside"] = popups(browser, int(sys.argv[sys.argv.index("--popups") + 1]))
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        console = browser.get_log("browser")
        facts["console_errors"] = [entry["message"] for entry in console if entry["level"] == "SEVERE"]
        facts["csp_violations"] = [entry["message"] for entry in console if "Content Security Policy" in entry["message"]]
        requests, csp = [], None
        for entry in browser.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                requests.append(message["params"]["request"]["url"])
            elif message["method"] == "Network.responseReceived" and message["params"]["response"]["url"].split("?")[0] == url.split("?")[0]:
                headers = {key.lower(): value for key, value in message["params"]["response"]["headers"].items()}
                csp = headers.get("content-security-policy", csp)
        facts["requests"] = sorted(set(requests))
        facts["foreign_requests"] = sorted({r for r in requests if not r.startswith(origin + "/")})
        facts["csp"] = csp
        if "--axe" in sys.argv:
            from axe_selenium_python import Axe
            axe = Axe(browser)
            axe.inject()
            # axe reads every node: a year of 400 people takes it more than selenium's default 30 s on a busy machine.
            browser.set_script_timeout(300)
            results = axe.run()
            facts["axe"] = sorted({violation["id"] for violation in results["violations"]
                                   if violation.get("impact") in ("serious", "critical")})
        print(json.dumps(facts))
    finally:
        browser.quit()


if __name__ == "__main__":
    main()
