"""The book's test harness: parse chapters, run their Python in Jupyter, run their OJS in Chromium."""
