"""The book's test harness: parse chapters, run Python in Jupyter, OJS in Chromium."""
