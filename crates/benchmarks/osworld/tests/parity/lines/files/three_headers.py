#!/usr/bin/env python3
# coding: utf-8
# coding=utf-8
# coding: latin-1
import dspy
def main():
    print('hi')
main()
