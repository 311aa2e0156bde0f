"""The app's screens: transcript, help, settings, file viewer."""
